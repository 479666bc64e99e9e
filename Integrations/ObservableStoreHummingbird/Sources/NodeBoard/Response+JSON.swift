import Hummingbird
import ObservableStore

extension Response {
    /// A response whose body is the JSON text `json`.
    static func json(_ json: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        .json(buffer: ByteBuffer(string: json), status: status, headers: headers)
    }

    /// A response whose body is the JSON text in `buffer` (UTF-8).
    static func json(buffer: ByteBuffer, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: buffer))
    }

    /// A response whose body is `row` as a JSON object, its columns as keys in the row's order.
    static func json(_ row: Row, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        json(JSONText.object(row.columns, row.values), status: status, headers: headers)
    }
}
