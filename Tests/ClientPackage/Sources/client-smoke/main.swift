import Foundation
import ObservableStore

// Opens a store in a temporary directory, writes through a listener, and prints what it saw. The package's
// own CSQLite target is a dependency (so it is built) but not imported here: the clash the package guards
// against is between target names in the package graph, found before anything compiles.
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("client-smoke-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let store = try SQLiteStore(path: directory.appendingPathComponent("app.sqlite").path)
let seen = DispatchSemaphore(value: 0)
let token = store.listen("smoke", filter: .table("nodes"), options: ListenerOptions(immediate: true)) { _ in seen.signal() }
let written = try store.writeReturningCommit { tx in try tx.insert(NodeVO(name: "client", x: 1, y: 2)) }
guard seen.wait(timeout: .now() + 10) == .success, let sequence = written.sequence else {
    FileHandle.standardError.write(Data("client-smoke: no event for the commit\n".utf8))
    exit(1)
}
print("client-smoke: commit \(sequence) seen")
// Observed's initializer is public: a client's tests can make the values an observed sequence yields (this
// line compiles only if it is).
let fake: Observed<[String]> = Observed(value: ["client"], sequence: sequence)
print("client-smoke: a fake observed value at \(fake.sequence)")
withExtendedLifetime(token) {}
store.close()
