import Foundation
import ObservableStore

/// Measures the time from a commit in one process to the handler in another (p50, p99), then the CPU a
/// listening process uses while nothing happens.
enum FeedMeasurement {
    static func run(commits: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("feed.sqlite").path
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let latencies = Latencies()
        let token = store.listen("latency", filter: .table("nodes")) { event in
            let now = Date().timeIntervalSince1970
            guard case .commit(let commit) = event else { return }
            for change in commit.changes {
                if let sent = change.new?.value("x", as: Double.self) { latencies.add(now - sent) }
            }
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["write", path, String(commits), "2"]
        try child.run()
        child.waitUntilExit()
        let deadline = Date().addingTimeInterval(10)
        while latencies.count < commits && Date() < deadline { usleep(10_000) }
        let sorted = latencies.all.sorted()
        guard sorted.count == commits else {
            throw StoreError(.internal, "received \(sorted.count) of \(commits) commits")
        }
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000 }
        print(String(format: "cross-process commit -> handler, %d commits 2 ms apart: p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                     commits, percentile(0.5), percentile(0.99), sorted.last! * 1000))

        let idleSeconds = 10.0
        let before = cpuSeconds()
        Thread.sleep(forTimeInterval: idleSeconds)
        let used = cpuSeconds() - before
        print(String(format: "idle listening process: %.3f s CPU in %.0f s = %.3f%% of one core", used, idleSeconds, used / idleSeconds * 100))
        withExtendedLifetime(token) {}
    }

    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
    }

    final class Latencies: @unchecked Sendable {
        // @unchecked: `values` is guarded by `lock`.
        private let lock = NSLock()
        private var values: [Double] = []
        func add(_ value: Double) { lock.withLock { values.append(value) } }
        var all: [Double] { lock.withLock { values } }
        var count: Int { lock.withLock { values.count } }
    }
}
