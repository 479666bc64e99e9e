import ArgumentParser

/// `sse-load`: load and benchmark tool for a running node-board: SSE clients, writer processes, and the HTTP floor.
@main
struct SSELoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sse-load",
        abstract: "Load a node-board's event stream and measure it.",
        subcommands: [LoadRun.self, LoadWrite.self, FloorServer.self],
        defaultSubcommand: LoadRun.self
    )
}
