import ArgumentParser
import Foundation
import ObservableStore

/// `storectl`: inspect and change an ObservableStore file from the shell.
struct StoreCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storectl",
        abstract: "Inspect and change an ObservableStore file.",
        // One line per paragraph: argument-parser wraps them to the terminal's width (lines wrapped here would be
        // wrapped again, mid-sentence).
        discussion: """
            The store is --db PATH, else $STORECTL_DB, else ./store.sqlite. Only `init` creates a file.

            --db postgres://user:password@host:port/database runs on PostgreSQL (a storectl built with `--traits default,PostgreSQL`; docs/POSTGRES.md): the same commands, output and exit codes, but backup, backups and checkpoint (use pg_dump or pg_basebackup; the server checkpoints).

            Output is a table on a terminal and NDJSON otherwise; --format always wins. Exit codes: `storectl help exit-codes`.
            """,
        version: "storectl \(SQLiteStore.libraryVersion) (ObservableStore \(SQLiteStore.libraryVersion))",
        subcommands: [
            Init.self, Info.self, Tables.self, Schema.self, Migrate.self, List.self, Get.self, Insert.self, Upsert.self,
            Update.self, Delete.self, Watch.self, Listeners.self, Query.self, Check.self, Backup.self, Backups.self, Checkpoint.self,
            Completion.self,
            ExitCodesCommand.self, Demo.self,
        ]
    )

    /// The global options that may come before the command name; they are moved after it, where each
    /// command's ``GlobalOptions`` parses them.
    static let globalOptionsWithValue: Set<String> = ["--db", "--format", "--busy-timeout"]
    static let globalFlags: Set<String> = ["--no-color", "-q", "--quiet", "-v", "--verbose"]

    /// Parses, runs, and maps failures to the documented exit codes (STORECTL.md C.2).
    static func main() {
        signal(SIGPIPE, SIG_DFL)  // quiet exit 141 under `| head`
        let arguments = reorderedArguments(Array(CommandLine.arguments.dropFirst()))
        let jsonErrors = wantsJSONErrors(arguments)
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch let error as StoreError {
            report(error, json: jsonErrors, verbose: arguments.contains("-v") || arguments.contains("--verbose"))
            Foundation.exit(ExitCodes.code(for: error))
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)  // --help, --version
            }
            if code == .validationFailure {
                let message = fullMessage(for: error).split(separator: "\n").first.map(String.init) ?? "usage error"
                let cleaned = message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message
                report(CLIError.usage(cleaned + " (see `storectl --help`)"), json: jsonErrors, verbose: false)
                Foundation.exit(ExitCodes.usage)
            }
            exit(withError: error)
        }
    }

    static func report(_ error: StoreError, json: Bool, verbose: Bool) {
        var message = error.message
        if verbose, let sqliteCode = error.sqliteCode { message += " (SQLite extended result code \(sqliteCode))" }
        let line: String
        if json {
            line = "{\"error\":{\"code\":\(JSONText.string(error.code.rawValue)),\"exit\":\(ExitCodes.code(for: error)),"
                + "\"message\":\(JSONText.string(message))}}"
        } else {
            line = "storectl: error[\(error.code.rawValue)]: \(message)"
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Moves global options given before the command name to the end, so that commands parse them.
    static func reorderedArguments(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if globalOptionsWithValue.contains(name) {
                leading.append(argument)
                if !argument.contains("="), index + 1 < arguments.count {
                    leading.append(arguments[index + 1])
                    index += 1
                }
            } else if globalFlags.contains(argument) {
                leading.append(argument)
            } else {
                break
            }
            index += 1
        }
        guard !leading.isEmpty, index < arguments.count else { return arguments }
        let rest = Array(arguments[index...])
        // Keep a trailing `--` (end of options) last.
        if let separator = rest.firstIndex(of: "--") {
            return Array(rest[..<separator]) + leading + Array(rest[separator...])
        }
        return rest + leading
    }

    static func wantsJSONErrors(_ arguments: [String]) -> Bool {
        for (index, argument) in arguments.enumerated() {
            if argument == "--format", index + 1 < arguments.count { return ["json", "ndjson"].contains(arguments[index + 1]) }
            if argument == "--format=json" || argument == "--format=ndjson" { return true }
        }
        return false
    }
}

/// `storectl exit-codes` (also `storectl help exit-codes`): the exit codes and what they mean.
struct ExitCodesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exit-codes",
        abstract: "List storectl's exit codes.",
        discussion: "Exit codes:\n" + ExitCodes.table + "\n\nExample:\n  storectl help exit-codes"
    )

    func run() {
        print(ExitCodes.table)
    }
}
