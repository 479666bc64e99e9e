import ObservableStore
import ObservableStoreExamples
import StoreTestSupport
import TestScheduling
import Testing

/// A view that records what its presenter shows.
private final class ListView: NodeListViewing {
    let shown: Recorder<[String]>
    init(_ shown: Recorder<[String]>) { self.shown = shown }
    func show(names: [String]) { shown.append(names) }
}

/// VIPER: the presenter holds its views weakly; a released view is not kept alive and receives nothing.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct WeakViewPresenterTests {
    @Test func aReleasedViewIsNotKeptAliveAndReceivesNothing() throws {
        try withTemporaryStore { store, _ in
            let presenter = NodeListPresenter(store: store)
            let shown = Recorder<[String]>()
            let keptShown = Recorder<[String]>()
            var view: ListView? = ListView(shown)
            let kept = ListView(keptShown)
            weak let released = view
            try presenter.attach(try #require(view), name: "list")
            try presenter.attach(kept, name: "sidebar")
            #expect(shown.all == [[]] && keptShown.all == [[]])  // shown at once
            try presenter.addNode(named: "A")
            #expect(shown.wait(for: 2) && keptShown.wait(for: 2))
            #expect(shown.all.last == ["A"])

            view = nil
            try waitUntil("the view to be gone") { released == nil }  // neither presenter nor store keeps it
            try presenter.addNode(named: "B")
            #expect(keptShown.wait(for: 3))  // the other view is still told
            #expect(keptShown.all.last == ["A", "B"])
            // The released view's listener found its owner gone at that change and removed itself.
            try waitUntil("the released view's listener to go") { store.listenerNames == ["presenter.sidebar"] }
            #expect(shown.all == [[], ["A"]])
        }
    }
}
