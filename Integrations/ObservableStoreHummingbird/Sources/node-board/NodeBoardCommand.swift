import ArgumentParser
import Hummingbird
import NodeBoard
import ObservableStoreHummingbird

/// `node-board --db PATH [--host 127.0.0.1] [--port 8080]`.
@main
struct NodeBoardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "node-board", abstract: "Serve the node board.")

    @Option(help: "The store's file (created if missing).")
    var db: String

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on.")
    var port = 8080

    func run() async throws {
        let service = try StoreService(path: db)
        let app = Application(
            router: NodeBoardApplication.router(service: service),
            configuration: .init(address: .hostname(host, port: port)),
            services: [service]
        )
        try await app.runService()
    }
}
