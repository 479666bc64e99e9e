import NodeBoard
import Testing

@Suite(.timeLimit(.minutes(10)))
struct ListenPolicyTests {
    @Test(arguments: ["127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]"])
    func loopbackIsAllowedWithoutAToken(host: String) {
        #expect(ListenPolicy.isLoopback(host))
        #expect(ListenPolicy.refusal(host: host, token: nil) == nil)
    }

    @Test(arguments: ["0.0.0.0", "192.168.1.10", "::", "example.com", "127.0.0", "127.0.0.256", "128.0.0.1"])
    func otherAddressesNeedAToken(host: String) throws {
        #expect(!ListenPolicy.isLoopback(host))
        let refusal = try #require(ListenPolicy.refusal(host: host, token: nil))
        #expect(refusal.contains(host))
        #expect(refusal.contains("NODE_BOARD_TOKEN"))
        #expect(!refusal.contains("\n"))
        #expect(ListenPolicy.refusal(host: host, token: "") != nil)
        #expect(ListenPolicy.refusal(host: host, token: "t") == nil)
    }
}
