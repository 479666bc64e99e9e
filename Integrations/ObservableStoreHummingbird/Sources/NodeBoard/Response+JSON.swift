import Hummingbird

extension Response {
    /// A response whose body is the JSON text `json`.
    static func json(_ json: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }
}
