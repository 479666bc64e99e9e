import Foundation

/// Runs every case on every contender, each in a child process, and prints medians and ratios.
struct Orchestrator {
    var repetitions = 5
    var only: Set<String>?
    var markdownPath: String?
    let contenders = ["raw", "grdb", "store"]

    init(arguments: [String]) {
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--repeat": repetitions = Int(arguments[index + 1]) ?? 5; index += 1
            case "--only": only = Set(arguments[index + 1].split(separator: ",").map(String.init)); index += 1
            case "--markdown": markdownPath = arguments[index + 1]; index += 1
            default: break
            }
            index += 1
        }
    }

    func run() throws {
        var lines: [String] = []
        let header = "| case | raw | grdb | store | grdb / raw | store / raw |"
        lines.append(header)
        lines.append("|---|---|---|---|---|---|")
        print(header)
        for workload in Workload.allCases where only?.contains(workload.rawValue) ?? true {
            // Repetitions interleave the contenders (raw, grdb, store, raw, grdb, store, …), so that a slow
            // spell of this shared machine falls on all of them rather than on one.
            var runs: [String: [Measurement]] = [:]
            for _ in 0..<repetitions {
                for contender in contenders where runs[contender]?.last?.unsupported == nil {
                    runs[contender, default: []].append(try spawn(workload, contender))
                }
            }
            let medians = runs.mapValues(median)
            let line = row(workload, medians)
            print(line)
            lines.append(line)
        }
        if let markdownPath {
            let text = lines.joined(separator: "\n") + "\n"
            try Data(text.utf8).write(to: URL(fileURLWithPath: markdownPath))
        }
    }

    private func spawn(_ workload: Workload, _ contender: String) throws -> Measurement {
        usleep(200_000)  // let the previous worker's exit (freed memory, deleted files) settle
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["worker", workload.rawValue, contender]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw WrongResult("\(workload.rawValue) on \(contender) failed (exit \(process.terminationStatus))")
        }
        return try JSONDecoder().decode(Measurement.self, from: data)
    }

    private func median(_ runs: [Measurement]) -> Measurement {
        func mid(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.sorted()[values.count / 2] }
        if let unsupported = runs.first?.unsupported { return Measurement(unsupported: unsupported) }
        return Measurement(
            seconds: mid(runs.compactMap(\.seconds)), p50: mid(runs.compactMap(\.p50)), p99: mid(runs.compactMap(\.p99)),
            peakBytes: mid(runs.compactMap(\.peakBytes)))
    }

    private func row(_ workload: Workload, _ medians: [String: Measurement]) -> String {
        func text(_ m: Measurement?) -> String {
            guard let m else { return "-" }
            if m.unsupported != nil { return "not supported" }
            if let p50 = m.p50, let p99 = m.p99 { return String(format: "p50 %.1f µs, p99 %.1f µs", p50 * 1e6, p99 * 1e6) }
            if let bytes = m.peakBytes, let seconds = m.seconds { return String(format: "%.1f ms, %.1f MB", seconds * 1e3, bytes / 1e6) }
            if let bytes = m.peakBytes { return String(format: "%.1f MB", bytes / 1e6) }
            if let seconds = m.seconds { return seconds < 0.01 ? String(format: "%.1f µs", seconds * 1e6) : String(format: "%.1f ms", seconds * 1e3) }
            return "-"
        }
        func ratio(_ m: Measurement?, _ base: Measurement?) -> String {
            guard let m, let base, m.unsupported == nil, base.unsupported == nil else { return "-" }
            // Time first: a case that reports time and memory (big_transaction) is compared on time.
            let a = m.p50 ?? m.seconds ?? m.peakBytes
            let b = base.p50 ?? base.seconds ?? base.peakBytes
            guard let a, let b, b > 0 else { return "-" }
            return String(format: "%.2f×", a / b)
        }
        return "| \(workload.rawValue) | \(text(medians["raw"])) | \(text(medians["grdb"])) | \(text(medians["store"])) | "
            + "\(ratio(medians["grdb"], medians["raw"])) | \(ratio(medians["store"], medians["raw"])) |"
    }
}
