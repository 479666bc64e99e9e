import ArgumentParser
import ObservableStore

/// `storectl check`: integrity, foreign keys, the change log's pieces and migration history.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the file's integrity, foreign keys and migration history (exit 9 on problems).",
        discussion: "Works on stores of any schema version. On PostgreSQL: capture triggers (missing or disabled), the commit sequence and the migration history.\n\nExample:\n  storectl check\n  storectl check --quick")

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "quick_check instead of integrity_check: faster, skips index consistency.") var quick = false

    func run() throws {
        let store: any CommandStore
        do {
            store = try global.openCommandStore(.any)
        } catch let error as StoreError where error.code == .corrupt {
            throw StoreError(CLIError.integrityCode, "the file is damaged: \(error.message)")
        }
        defer { store.close() }
        var problems: [String] = []
        do {
            problems += try store.integrityProblems(quick: quick)
        } catch let error as StoreError where error.code == .corrupt {
            problems.append(error.message)
        }
        let status = try? store.migrationStatus()
        if let status {
            for entry in status.conflicts { problems.append("migration history: " + status.conflictError(for: entry).message) }
        }
        for entry in status?.unknown ?? [] {
            problems.append("migration history: \(Migration.format(entry.version))_\(entry.name) is newer than storectl (not a problem of the file)")
        }
        if problems.isEmpty {
            global.output.text("ok")
            return
        }
        global.output.text(problems.joined(separator: "\n"))
        let real = problems.filter { !$0.hasSuffix("(not a problem of the file)") }
        if !real.isEmpty { throw StoreError(CLIError.integrityCode, "\(real.count) problem\(real.count == 1 ? "" : "s") found") }
    }
}
