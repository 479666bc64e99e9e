import ArgumentParser
import Foundation
import ObservableStore

extension StoreCtl {
    /// `storectl demo`: creates a store and plays a short node-editor scenario against it.
    struct Demo: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create (or reuse) a store and play a short scenario against it.",
            discussion: """
                Example:
                  storectl demo --db demo.sqlite
                """
        )

        @Option(name: .long, help: "The store file to create or reuse.")
        var db = "demo.sqlite"

        func run() throws {
            let store = try Store(path: db)
            defer { store.close() }
            let nodes = store.repository(NodeVO.self)
            let users = store.repository(UserInfo.self)
            print("store \(db): schema \(try store.schemaVersion()), \(try nodes.count()) nodes")

            let a = try nodes.insert(NodeVO(name: "A", x: 0, y: 0))
            let b = try nodes.insert(NodeVO(name: "B", x: 100, y: 40))
            print("created nodes \(a.id!) and \(b.id!)")

            var moved = b
            moved.x += 25
            moved.updatedAt = Date().truncatedToMilliseconds
            try nodes.update(moved)
            print("moved node \(b.id!) to (\(moved.x), \(moved.y))")

            try users.upsert(UserInfo(id: "me", name: "Ada", hairColor: "brown"))
            print("user me is now \(try users.fetch("me")?.name ?? "?")")

            do {
                try store.write { tx in
                    try tx.insert(NodeVO(name: "never", x: 1, y: 1))
                    throw StoreError(.internal, "rolled back on purpose")
                }
            } catch let error as StoreError where error.message == "rolled back on purpose" {
                print("a transaction that inserted a node rolled back: \(try nodes.count()) nodes remain")
            }
        }
    }
}
