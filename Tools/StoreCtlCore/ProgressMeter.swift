import Foundation

/// A progress line on stderr for long imports and exports: only when stderr is a terminal (and not `--quiet`),
/// only after one second, redrawn a few times a second. It shows the count, the rate and the elapsed time, and
/// the percentage and the time left when the input's size is known (an import from a file; an export's row
/// count is not known in advance, so it shows no percentage). An export's meter is shown only when stdout is
/// not a terminal either (the rows go to a file or a pipe): on a terminal it would mix with the rows.
final class ProgressMeter {
    private let enabled: Bool
    private let noun: String
    private let started = ContinuousClock.now
    private var lastDrawn: ContinuousClock.Instant?
    /// The count at which to look at the clock next (reading it for every record would cost).
    private var nextCheck = 0

    /// A meter counting `noun` ("records"); never shown when `quiet` or when stderr is not a terminal, nor,
    /// for an export (`exporting`), when stdout is a terminal.
    init(noun: String = "records", quiet: Bool, exporting: Bool = false) {
        self.noun = noun
        enabled = !quiet && isatty(STDERR_FILENO) == 1 && !(exporting && isatty(STDOUT_FILENO) == 1)
    }

    /// Notes that `count` items are done, `bytes` of the input read out of `totalBytes` (nil when unknown).
    func update(count: Int, bytes: Int = 0, totalBytes: Int? = nil) {
        guard enabled, count >= nextCheck else { return }
        nextCheck = count + 100
        let now = ContinuousClock.now
        let elapsed = Self.seconds(now - started)
        guard elapsed >= 1, lastDrawn.map({ Self.seconds(now - $0) >= 0.25 }) ?? true else { return }
        lastDrawn = now
        var line = "\(count) \(noun)  \(Int(Double(count) / elapsed))/s  \(Self.format(elapsed))"
        if let totalBytes, totalBytes > 0, bytes > 0 {
            let fraction = min(Double(bytes) / Double(totalBytes), 1)
            line += "  \(Int(fraction * 100))%  ETA \(Self.format(elapsed / fraction - elapsed))"
        }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
    }

    /// Clears the line, if it was shown.
    func finish() {
        if lastDrawn != nil { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        lastDrawn = nil
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `12.3 s`, or `4 min 05 s`.
    private static func format(_ seconds: Double) -> String {
        guard seconds >= 60 else { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds)
        return String(format: "%d min %02d s", whole / 60, whole % 60)
    }
}
