import Foundation
import Hummingbird
import NodeBoard
import Testing

@Suite(.timeLimit(.minutes(10)))
struct PageTests {
    @Test(arguments: [
        ("/", "text/html; charset=utf-8", #"<main id="board""#),
        ("/board.js", "text/javascript; charset=utf-8", "new EventSource("),
        ("/board.css", "text/css; charset=utf-8", ".node.selected"),
    ])
    func servesTheFilesCompiledIn(path: String, contentType: String, excerpt: String) async throws {
        try await BoardFixture.with { board in
            let response = try await board.send(.get, path)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == contentType)
            #expect(response.text.contains(excerpt))
        }
    }

    @Test func pageHasTheElementsTheTestsUse() async throws {
        try await BoardFixture.with { board in
            let page = try await board.send(.get, "/").text
            for id in ["board", "new-node", "user-name", "user-name-input", "rename-user", "connection", "seq",
                "node-name-input", "rename-node", "delete-node", "error"]
            {
                #expect(page.contains(#"id="\#(id)""#), "missing #\(id)")
            }
        }
    }

    @Test func healthz() async throws {
        try await BoardFixture.with { board in
            let response = try await board.send(.get, "/healthz")
            #expect(response.status == .ok)
            #expect(response.text == "ok")
        }
    }

    @Test func metricsInPrometheusText() async throws {
        try await BoardFixture.with { board in
            let response = try await board.send(.get, "/metrics")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
        }
    }
}
