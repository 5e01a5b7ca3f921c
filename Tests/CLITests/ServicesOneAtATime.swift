import Testing

/// The heaviest end-to-end suites (`jarvis-voice run` on paced devices for tens of seconds) take turns:
/// on two cores they would otherwise starve the whole test run.
@Suite(.serialized) enum ServicesOneAtATime {}
