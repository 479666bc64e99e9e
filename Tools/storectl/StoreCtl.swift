import ArgumentParser
import Foundation
import ObservableStore

/// `storectl`: inspect and change an ObservableStore file from the shell.
@main
struct StoreCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storectl",
        abstract: "Inspect and change an ObservableStore file.",
        version: "storectl \(Store.libraryVersion) (ObservableStore \(Store.libraryVersion))",
        subcommands: [Demo.self]
    )

    /// Parses, runs, and maps failures to the documented exit codes (STORECTL.md C.2).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as StoreError {
            FileHandle.standardError.write(Data("storectl: error[\(error.code)]: \(error.message)\n".utf8))
            Foundation.exit(ExitCodes.code(for: error))
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(ExitCodes.usage)
            }
            exit(withError: error)
        }
    }
}
