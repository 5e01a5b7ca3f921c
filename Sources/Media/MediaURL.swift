import Basics

/// Media URLs are `WebURL`s parsed under `WebURL.Rules.media` (the default): http and https only, so a
/// URL from the model or a feed never makes the appliance read `file:` or talk `ftp:`.
public typealias MediaURL = WebURL
public typealias MediaURLError = WebURLError
