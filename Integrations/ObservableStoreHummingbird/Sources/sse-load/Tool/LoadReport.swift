import Foundation

/// The outcome of `sse-load run`: whether every client got every commit once and in order, latency, memory.
struct LoadReport {
    let records: [LoadClientRecord]
    let start: Int64
    let end: Int64
    let writers: Int
    let writeVia: WritePath
    let rate: Double
    let writeSeconds: Double
    let memory: (before: Int?, connected: Int?, after: Int?)

    /// Every client reached the last sequence, received each commit once, and saw nothing else.
    var passed: Bool {
        records.allSatisfy { $0.problems.isEmpty && $0.lastSequence == end && $0.received == Int(end - start) }
    }

    /// The report printed by `sse-load run`.
    var text: String {
        let expected = Int(end - start)
        var lines = [
            "clients \(records.count), commits \(expected) (seq \(start + 1)...\(end)), \(writers) writer processes (via \(writeVia.rawValue)) at "
                + (rate > 0 ? "\(format(rate)) commits/s each" : "full speed") + ", written in \(format(writeSeconds)) s"
        ]
        let delivered = records.reduce(0) { $0 + $1.received }
        let failing = records.filter { !($0.problems.isEmpty && $0.lastSequence == end && $0.received == expected) }
        if failing.isEmpty {
            lines.append("delivered \(delivered) of \(expected * records.count) events: every client got every commit once, in order")
        } else {
            lines.append("FAILED: \(failing.count) of \(records.count) clients; delivered \(delivered) of \(expected * records.count)")
            for record in failing.prefix(5) {
                let problems = record.problems.prefix(3).joined(separator: "; ")
                lines.append("  client: last \(record.lastSequence), received \(record.received); \(problems)")
            }
        }
        var latencies = records.flatMap(\.latencies)
        latencies.sort()
        if !latencies.isEmpty {
            lines.append(
                "latency commit -> client (\(latencies.count) samples): p50 \(milliseconds(latencies, 0.50)) ms, "
                    + "p99 \(milliseconds(latencies, 0.99)) ms, max \(milliseconds(latencies, 1.0)) ms")
        }
        if let before = memory.before, let connected = memory.connected {
            let perClient = Double(connected - before) / Double(records.count)
            lines.append(
                "server RSS: \(before) KiB before, \(connected) KiB with \(records.count) clients connected, "
                    + "\(memory.after.map(String.init) ?? "?") KiB after the commits; \(format(perClient)) KiB per connected client")
        }
        return lines.joined(separator: "\n")
    }

    private func milliseconds(_ sorted: [UInt64], _ quantile: Double) -> String {
        let index = min(sorted.count - 1, Int((Double(sorted.count) * quantile).rounded(.up)) - 1)
        return format(Double(sorted[max(0, index)]) / 1e6)
    }

    private func format(_ value: Double) -> String { String(format: "%.2f", value) }
}
