// A helper process for the test suite: it does one store operation in its own process, so tests can
// race real processes against each other. Not a user tool.
//
//   store-fixture migrate DB [SET_NAME MIGRATIONS_DIR]   open DB (applying migrations), print the applied versions
//   store-fixture measure-capture [ROWS] [REPEATS]        time change capture + change log layouts (build with -c release)
//
// Exit codes: 0 ok, 5 busy, 7 schema too new, 8 migration conflict, 1 anything else.
import Foundation
import ObservableStore

func fail(_ error: any Error) -> Never {
    FileHandle.standardError.write(Data("store-fixture: \(error)\n".utf8))
    let code: Int32 =
        switch (error as? StoreError)?.code {
        case .busy?: 5
        case .schemaTooNew?: 7
        case .migrationConflict?: 8
        default: 1
        }
    exit(code)
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "measure-capture" {
    do {
        try CaptureMeasurement.run(
            rows: arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000,
            repeats: arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5)
        exit(0)
    } catch {
        fail(error)
    }
}
guard arguments.count >= 2, arguments[0] == "migrate" else {
    FileHandle.standardError.write(
        Data("usage: store-fixture migrate DB [SET_NAME MIGRATIONS_DIR] | measure-capture [ROWS] [REPEATS]\n".utf8))
    exit(2)
}
do {
    var configuration = StoreConfiguration()
    configuration.applicationName = "store-fixture \(getpid())"
    if arguments.count >= 4 {
        configuration.migrationSets = [
            try MigrationSet(name: arguments[2], directory: URL(fileURLWithPath: arguments[3]))
        ]
    }
    let store = try Store(path: arguments[1], configuration: configuration)
    let applied = try store.appliedMigrations()
    print(applied.map { "\($0.set)/\($0.version) by \($0.appliedBy)" }.joined(separator: "\n"))
    store.close()
} catch {
    fail(error)
}
