import ObservableStore
import ObservableStoreExamples
import StoreTestSupport
import TestScheduling
import Testing

/// Property listeners: `UserInfo.name` with named listeners; bind and fire; the same name replaces.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct PropertyListenerTests {
    @Test func namedListenersGetTheNameAtOnceThenEachChangeAndTheSameNameReplaces() throws {
        try withTemporaryStore { store, _ in
            let users = store.repository(UserInfo.self)
            try users.insert(UserInfo(id: "me", name: "Ada"))
            let name = UserNameListeners(store: store, userID: "me")
            let header = Recorder<String?>()
            let menu = Recorder<String?>()
            try name.bindAndFireNameListener("header") { header.append($0) }
            try name.bindAndFireNameListener("menu") { menu.append($0) }
            #expect(header.all == ["Ada"] && menu.all == ["Ada"])  // fired before returning

            try name.setName("Grace")
            #expect(header.wait(for: 2) && menu.wait(for: 2))

            // The same name again replaces the listener: the new one fires at once, the old one never again.
            let newHeader = Recorder<String?>()
            try name.bindAndFireNameListener("header") { newHeader.append($0) }
            #expect(newHeader.all == ["Grace"])
            try name.setName("Lin")
            #expect(newHeader.wait(for: 2) && menu.wait(for: 3))
            #expect(header.all == ["Ada", "Grace"])
            #expect(name.listenerNames == ["header", "menu"])
            #expect(store.listenerNames == ["UserInfo.name.me.header", "UserInfo.name.me.menu"])

            // Another column of the user does not call them; the next name does.
            var user = try #require(try users.fetch("me"))
            user.hairColor = "red"
            try users.update(user)
            try name.setName("Zoe")
            #expect(menu.wait(for: 4) && newHeader.wait(for: 3))
            #expect(menu.all == ["Ada", "Grace", "Lin", "Zoe"])

            // Removed by name: nothing more.
            #expect(name.removeNameListener("menu"))
            #expect(!name.removeNameListener("menu"))
            try name.setName("Max")
            #expect(newHeader.wait(for: 4))
            #expect(menu.all == ["Ada", "Grace", "Lin", "Zoe"])
            #expect(store.listenerNames == ["UserInfo.name.me.header"])
        }
    }

    @Test func aListenerOfAUserNotYetThereGetsNilThenTheName() throws {
        try withTemporaryStore { store, _ in
            let name = UserNameListeners(store: store, userID: "new")
            let label = Recorder<String?>()
            try name.bindAndFireNameListener("label") { label.append($0) }
            #expect(label.all == [nil])
            try name.setName("Ada")  // creates the user
            #expect(label.wait(for: 2))
            #expect(label.all == [nil, "Ada"])
        }
    }
}
