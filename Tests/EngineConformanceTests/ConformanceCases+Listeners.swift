import Foundation
import ObservableStoreCore
import StoreTestSupport
import Testing

extension ConformanceCases {
    /// Registering a name again replaces the listener: the old handler gets nothing more; removing by name stops
    /// delivery and says whether there was one.
    static func namedListenersReplaceAndRemove<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            let (old, oldToken) = record(store, "view")
            let (new, newToken) = record(store, "view")
            defer { oldToken.cancel(); newToken.cancel() }
            #expect(store.listenerNames == ["view"])
            try insertNodes(store, ["a"])
            try waitForCommits(new, 1, "the replacing listener's commit")
            #expect(old.commits.isEmpty)
            #expect(store.removeListener("view"))
            #expect(!store.removeListener("view"))
            #expect(store.listenerNames.isEmpty)
            let (witness, witnessToken) = record(store, "witness")
            defer { witnessToken.cancel() }
            try insertNodes(store, ["b"])
            try waitForCommits(witness, 1, "a later commit")
            #expect(new.commits.count == 1 && old.commits.isEmpty)
        }
    }

    /// Filters by table and by origin (included and excluded) pick the same commits and changes on both engines.
    static func filtersByTableAndOrigin<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            let (all, allToken) = record(store, "all")
            let (users, usersToken) = record(store, "users", filter: .table("user_info"))
            let (fromEditor, editorToken) = record(store, "from-editor", filter: ChangeFilter(origins: ["editor"]))
            let (notMine, notMineToken) = record(store, "not-mine", filter: ChangeFilter(excludedOrigins: ["editor"]))
            defer { [allToken, usersToken, editorToken, notMineToken].forEach { $0.cancel() } }
            try store.write(origin: "editor") { tx in _ = try tx.insert(node("n")) }
            try store.write(origin: "sync") { tx in
                _ = try tx.insert(UserInfo(id: "me", name: "Ada"))
                _ = try tx.insert(node("m"))
            }
            try store.write(origin: nil) { tx in _ = try tx.insert(UserInfo(id: "you", name: "Bob")) }
            try waitForCommits(all, 3, "every commit")
            try waitForCommits(users, 2, "the user_info commits")
            try waitForCommits(fromEditor, 1, "the editor's commit")
            try waitForCommits(notMine, 2, "the others' commits")
            #expect(all.commits.map(\.origin) == ["editor", "sync", nil])
            #expect(users.commits.map { $0.changes.map(\.table) } == [["user_info"], ["user_info"]])
            #expect(fromEditor.commits.map(\.origin) == ["editor"])
            #expect(notMine.commits.map(\.origin) == ["sync", nil])
            #expect(all.commits[1].changes.map(\.table) == ["user_info", "nodes"])
        }
    }

    /// Each listener receives every matching commit exactly once, in sequence order; a typed listener gets the
    /// records decoded.
    static func everyCommitOnceInOrder<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            let (recorder, token) = record(store)
            let typed = Recorder<RecordEvent<NodeVO>>()
            let typedToken = store.listen("typed", to: NodeVO.self, filter: .all, options: ListenerOptions()) { typed.append($0) }
            defer { token.cancel(); typedToken.cancel() }
            let start = try store.lastSequence()
            let nodes = try insertNodes(store, (0..<50).map { "n\($0)" })
            try waitForCommits(recorder, 50, "50 commits")
            try waitUntil("50 typed commits") { typed.count >= 50 }
            usleep(100_000)  // room for a wrong extra delivery
            #expect(recorder.commits.map(\.sequence) == Array(start + 1...start + 50))
            #expect(recorder.all.count == 50)
            let typedNodes = typed.all.compactMap { event -> NodeVO? in
                if case .commit(let commit) = event { commit.changes.first?.new } else { nil }
            }
            #expect(typedNodes == nodes)
        }
    }

    /// `changes()` streams the same commits as a listener, as an `AsyncSequence`.
    static func changesStreamTheCommits<E: ConformanceEngine>(_ engine: E) async throws {
        try await withStore(engine) { store in
            let events = store.changes(filter: .table("nodes"), bufferSize: 16)
            let start = try store.lastSequence()
            try insertNodes(store, ["a", "b", "c"])
            let sequences = try await withDeadline("three streamed commits") { () -> [Int64] in
                var sequences: [Int64] = []
                for await event in events {
                    if let sequence = event.sequence { sequences.append(sequence) }
                    if sequences.count == 3 { break }
                }
                return sequences
            }
            #expect(sequences == [start + 1, start + 2, start + 3])
        }
    }
}
