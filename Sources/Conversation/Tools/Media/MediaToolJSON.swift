import Basics
import Media
import Realtime

/// The short JSON texts the media tools answer with (the model speaks from them).
enum MediaToolJSON {
    static func item(_ item: MediaItem) -> JSONValue {
        var fields: [String: JSONValue] = ["url": .string(item.url), "type": .string(item.kind.rawValue)]
        if let title = item.title { fields["title"] = .string(title) }
        if let show = item.show { fields["show"] = .string(show) }
        return .object(fields)
    }

    /// `{"status": ..., "title": ..., "show": ..., "type": ..., "url": ...}`.
    static func status(_ status: String, item: MediaItem?, extra: [String: JSONValue] = [:]) -> String {
        var fields: [String: JSONValue] = ["status": .string(status)]
        if let item, case .object(let described) = Self.item(item) {
            fields.merge(described) { _, new in new }
        }
        fields.merge(extra) { _, new in new }
        return JSONValue.object(fields).jsonText
    }

    /// Whole seconds (the model speaks them; fractions are noise).
    static func seconds(_ value: Double) -> JSONValue { .number(value.isFinite ? value.rounded() : 0) }

    /// Two decimals, for volume levels.
    static func level(_ value: Double) -> JSONValue { .number(value.isFinite ? (value * 100).rounded() / 100 : 0) }

    /// The URL argument `key`, refused here when the player would refuse it (`MediaURL`: only absolute
    /// `http`/`https` URLs, bounded length) before the call reaches it.
    static func url(_ arguments: ToolArguments, _ key: String, tool: String) throws(MediaCommandError) -> String {
        guard let url = arguments.string(key)?.trimmed() else { throw MediaCommandError("\(tool) needs a \(key)") }
        do throws(MediaURLError) {
            _ = try MediaURL(parsing: url)
            return url
        } catch {
            throw MediaCommandError("\(tool): \(error)")
        }
    }
}
