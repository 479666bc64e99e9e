import ArgumentParser
import Foundation
import ObservableStore

/// `storectl backup DEST`: an online, consistent, verified copy.
struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the store to DEST while others keep writing, then quick_check the copy.",
        discussion: "Refuses to overwrite DEST unless --force.\n\nExample:\n  storectl backup app-2026-11-22.sqlite")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The new file.") var destination: String
    @Flag(name: .long, help: "Overwrite DEST if it exists.") var force = false

    func run() throws {
        try global.refusePostgres("backup copies SQLite files; back a PostgreSQL database up with pg_dump or pg_basebackup")
        let store = try global.openStore(.any)
        defer { store.close() }
        if FileManager.default.fileExists(atPath: destination) {
            guard force else { throw CLIError.exists("\(destination) exists; pass --force to overwrite") }
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: destination + suffix) }
        }
        let started = ContinuousClock.now
        try store.backup(to: destination)
        let elapsed = ContinuousClock.now - started
        let size = (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        global.say(
            "backed up \(global.path) -> \(destination) (\(String(format: "%.1f", Double(size) / 1_000_000)) MB, "
                + "\(String(format: "%.1f", seconds)) s, quick_check ok)")
    }
}
