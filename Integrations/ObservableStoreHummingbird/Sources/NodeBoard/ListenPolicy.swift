/// Which addresses the board may listen on: a loopback address always; any other only with a write token, since
/// anyone who can reach it could write.
public enum ListenPolicy {
    /// Why listening on `host` is refused, or nil when it is allowed. `token` is `NODE_BOARD_TOKEN` (empty counts
    /// as unset).
    ///
    /// ```swift
    /// ListenPolicy.refusal(host: "0.0.0.0", token: nil)   // "refusing to listen on 0.0.0.0 without …"
    /// ListenPolicy.refusal(host: "127.0.0.1", token: nil) // nil
    /// ```
    public static func refusal(host: String, token: String?) -> String? {
        if isLoopback(host) || !(token ?? "").isEmpty { return nil }
        return "node-board: refusing to listen on \(host) without a token: set NODE_BOARD_TOKEN "
            + "(writes then need Authorization: Bearer <token>) or use --host 127.0.0.1"
    }

    /// Whether `host` names the loopback interface: `localhost`, `127.0.0.0/8`, `::1`.
    public static func isLoopback(_ host: String) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { octet in UInt8(octet) != nil }
    }
}
