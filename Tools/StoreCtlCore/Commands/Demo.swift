import ArgumentParser
import Foundation
import ObservableStore

/// `storectl demo`: the README's "see it work" command.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create (or reuse) a store, register listeners as a node editor's views would, and play a short scenario.",
        discussion: """
            Prints each event as its listener receives it, then how to watch the same store from another terminal.
            Example:
              storectl demo --db demo.sqlite
            """)

    @Option(name: .long, help: "The store file to create or reuse.") var db = "demo.sqlite"

    func run() throws {
        guard !GlobalOptions.isPostgresURL(db) else {
            throw CLIError.usage("demo plays on a SQLite file, not on --db \(GlobalOptions.redacted(db)); pass a file name")
        }
        let store = try SQLiteStore(path: db)
        defer { store.close() }
        let say: @Sendable (String) -> Void = { line in print(line) }
        print("store \(db): schema \(Migration.format(try store.schemaVersion())), \(try store.repository(NodeVO.self).count()) nodes\n")

        // The views. Immediate delivery keeps the printout in the order things happen.
        let now = ListenerOptions(immediate: true)
        var tokens: [ListenerToken] = []
        tokens.append(
            store.listen("list-view", to: NodeVO.self, options: now) { event in
                guard case .commit(let commit) = event else { return }
                for change in commit.changes {
                    say("  [list-view]        #\(commit.sequence) \(change.operation.rawValue) node \(change.key.first.map(Output.cell) ?? "?")"
                        + " \(change.new.map { "'\($0.name)' at (\(Int($0.x)), \(Int($0.y)))" } ?? "")")
                }
            })
        try store.repository(UserInfo.self).upsert(UserInfo(id: "me", name: "Ada", hairColor: "brown"))
        for view in ["first-view", "second-view", "third-view"] {
            tokens.append(
                try store.bindAndFire("\(view).name", UserInfo.self, key: "me", \.name, options: now) { name in
                    say("  [\(view).name] name is \(name ?? "-")")
                })
        }
        // The third view registers again under the same name: it replaces the first registration.
        tokens.append(
            try store.bindAndFire("third-view.name", UserInfo.self, key: "me", \.name, options: now) { name in
                say("  [third-view.name] (re-registered) name is \(name ?? "-")")
            })
        print("listeners: \(store.listenerNames.joined(separator: ", "))\n")

        print("create two nodes")
        let nodes = store.repository(NodeVO.self, origin: "demo")
        let a = try nodes.insert(NodeVO(name: "A", x: 0, y: 0))
        let b = try nodes.insert(NodeVO(name: "B", x: 100, y: 40))

        print("select node \(b.id!) and move it")
        tokens.append(
            try store.bindAndFire("detail-view", NodeVO.self, key: b.id!, options: now) { node in
                say("  [detail-view]      node \(b.id!) is \(node.map { "'\($0.name)' at (\(Int($0.x)), \(Int($0.y)))" } ?? "deleted")")
            })
        var moved = b
        moved.x += 25
        moved.updatedAt = Date()
        try nodes.update(moved)

        print("rename the user")
        var user = try store.repository(UserInfo.self).fetch("me")!
        user.name = user.name == "Ada" ? "Grace" : "Ada"
        try store.repository(UserInfo.self).update(user)

        print("a transaction that inserts a node, then fails: rolled back, no event")
        struct Cancelled: Error {}
        do {
            try store.write(origin: "demo") { tx in
                try tx.insert(NodeVO(name: "never", x: 1, y: 1))
                throw Cancelled()
            }
        } catch is Cancelled {}
        print("  nodes in the store: \(try nodes.count()) (node \(a.id!) and \(b.id!) among them)\n")

        print("Watch this store from a second terminal while you run the demo again:")
        print("  storectl watch --db \(db)")
        withExtendedLifetime(tokens) {}
    }
}
