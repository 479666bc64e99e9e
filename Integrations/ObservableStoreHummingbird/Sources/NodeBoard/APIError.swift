import Hummingbird
import ObservableStore

/// An error of the board's API, answered as `{"error":{"code":…,"message":…,"field":…}}` with its HTTP status.
///
/// For example, a body whose `x` is a string:
///
/// ```swift
/// throw APIError.wrongType(field: "x", expected: "a number")
/// // 400 {"error":{"code":"wrong_type","message":"field \"x\" must be a number","field":"x"}}
/// ```
public struct APIError: Error, HTTPResponseError, Sendable, Equatable {
    /// The HTTP status of the response.
    public let status: HTTPResponse.Status
    /// The stable code clients match on, e.g. "not_found".
    public let code: String
    /// A one-line explanation for people.
    public let message: String
    /// The request field or parameter at fault, if one is.
    public let field: String?

    /// Makes an error.
    public init(_ status: HTTPResponse.Status, code: String, message: String, field: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
    }

    /// The body is not JSON, or not a JSON object (400 "malformed_json").
    public static func malformedJSON(_ message: String) -> APIError {
        APIError(.badRequest, code: "malformed_json", message: message)
    }

    /// A field has the wrong JSON type (400 "wrong_type").
    public static func wrongType(field: String, expected: String) -> APIError {
        APIError(.badRequest, code: "wrong_type", message: "field \"\(field)\" must be \(expected)", field: field)
    }

    /// A required field is absent (400 "missing_field").
    public static func missingField(_ field: String) -> APIError {
        APIError(.badRequest, code: "missing_field", message: "field \"\(field)\" is required", field: field)
    }

    /// The body names a field the endpoint does not take (400 "unknown_field").
    public static func unknownField(_ field: String, allowed: [String]) -> APIError {
        APIError(
            .badRequest, code: "unknown_field",
            message: "unknown field \"\(field)\" (allowed: \(allowed.joined(separator: ", ")))", field: field)
    }

    /// A query or path parameter is not valid (400 "bad_parameter").
    public static func badParameter(_ name: String, _ message: String) -> APIError {
        APIError(.badRequest, code: "bad_parameter", message: "parameter \"\(name)\" \(message)", field: name)
    }

    /// The record does not exist (404 "not_found").
    public static func notFound(table: String, key: String) -> APIError {
        APIError(.notFound, code: "not_found", message: "\(table)/\(key) not found")
    }

    /// The body is over `limit` bytes (413 "too_large").
    public static func tooLarge(limit: Int) -> APIError {
        APIError(.contentTooLarge, code: "too_large", message: "the body is larger than \(limit) bytes")
    }

    /// The body is not `application/json` (415 "unsupported_media_type").
    public static func unsupportedMediaType(_ contentType: String?) -> APIError {
        APIError(
            .unsupportedMediaType, code: "unsupported_media_type",
            message: "the body must be application/json, not \(contentType.map { "\"\($0)\"" } ?? "untyped")")
    }

    /// The write has no bearer token, or the wrong one (401 "unauthorized").
    public static let unauthorized = APIError(
        .unauthorized, code: "unauthorized", message: "writes need the header Authorization: Bearer <token>")

    /// A store error as the API answers it: a constraint is 409 "constraint", a missing record 404 "not_found";
    /// anything else is rethrown as it is (a 500).
    public static func mapping(_ error: any Error) -> any Error {
        guard let storeError = error as? StoreError else { return error }
        switch storeError.code {
        case .constraint: return APIError(.conflict, code: "constraint", message: storeError.message)
        case .notFound: return APIError(.notFound, code: "not_found", message: storeError.message)
        default: return error
        }
    }

    /// The error as its JSON response.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        let body = "{\"error\":{\"code\":\(JSONText.string(code)),\"message\":\(JSONText.string(message)),\"field\":"
            + (field.map(JSONText.string) ?? "null") + "}}"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
