import Foundation

/// The text (``Timestamp/format(_:)``) of the last two dates formatted, by millisecond.
///
/// Records written in a loop often carry the same dates, or dates within one millisecond, and formatting
/// a date was the largest part of encoding a ``NodeVO`` (two per row). Two entries: a record's creation
/// and update times, or a commit's time.
///
/// Not thread-safe: each writer (and its change log) has its own, used only inside its writes.
package final class TimestampCache {
    private var first: (milliseconds: Int64, text: String) = (.min, "")
    private var second: (milliseconds: Int64, text: String) = (.min, "")
    /// Which entry the next new date replaces.
    private var replacesFirst = true

    /// An empty cache.
    package init() {}

    /// `Timestamp.format(date)`, formatted again only when neither entry has its millisecond.
    package func text(for date: Date) -> String {
        let milliseconds = Timestamp.milliseconds(of: date)
        if first.milliseconds == milliseconds { return first.text }
        if second.milliseconds == milliseconds { return second.text }
        let text = Timestamp.format(date)
        if replacesFirst { first = (milliseconds, text) } else { second = (milliseconds, text) }
        replacesFirst.toggle()
        return text
    }
}
