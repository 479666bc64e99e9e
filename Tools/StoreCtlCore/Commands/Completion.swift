import ArgumentParser

/// `storectl completion bash|zsh|fish`.
struct Completion: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a shell completion script.",
        discussion: "Example:\n  storectl completion bash > /etc/bash_completion.d/storectl")

    @Argument(help: "bash, zsh or fish.") var shell: String

    func validate() throws {
        guard CompletionShell(rawValue: shell) != nil else { throw ValidationError("shell must be bash, zsh or fish") }
    }

    func run() {
        print(StoreCtl.completionScript(for: CompletionShell(rawValue: shell)!))
    }
}
