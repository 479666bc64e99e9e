import Hummingbird

/// Lets reads (GET, HEAD, OPTIONS) through and requires `Authorization: Bearer <token>` on every other method;
/// a write without it, or with another token, gets 401 "unauthorized" (with `WWW-Authenticate: Bearer`) and
/// never reaches its handler.
public struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The token writes must present.
    let token: String

    /// Requires `token` (without leading and trailing spaces) on writes.
    public init(token: String) {
        self.token = token.trimmingSpaces  // as the presented one is
    }

    /// Checks the request, then passes it on.
    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        switch request.method {
        case .get, .head, .options: return try await next(request, context)
        default: break
        }
        guard let presented = BearerTokenMiddleware.bearerToken(in: request.headers[.authorization]),
            BearerTokenMiddleware.constantTimeEqual(presented, token)
        else { throw APIError.unauthorized }
        return try await next(request, context)
    }

    /// The token of an `Authorization: Bearer <token>` header value (the scheme is case-insensitive).
    static func bearerToken(in header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingSpaces
    }

    /// Compares without stopping at the first different byte, so the time taken does not tell how much matched.
    static func constantTimeEqual(_ left: String, _ right: String) -> Bool {
        let left = Array(left.utf8)
        let right = Array(right.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
        }
        return difference == 0
    }
}

extension String {
    /// The string without leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
