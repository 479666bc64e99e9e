import Hummingbird
import Logging

/// Logs each request that ends in an error at `warning` (method, path, status, message). An error that is not an
/// HTTP error (a store failure other than a constraint or a missing record) answers 500 "internal" in the API's
/// JSON form; the others answer as they would.
struct ErrorLoggingMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            let message = (error as? APIError).map { "\($0.code): \($0.message)" } ?? String(describing: error)
            context.logger.warning("\(request.method) \(request.uri.path) -> \(status.code) \(message)")
            if error is any HTTPResponseError { throw error }
            // The detail (store errors name files) stays in the log.
            throw APIError(.internalServerError, code: "internal", message: "the request failed; the server log says why")
        }
    }
}
