import Hummingbird

/// The board's page: `index.html`, `board.js` and `board.css`, compiled into the binary.
struct PageRoutes: Sendable {
    /// A file of the page: its bytes and content type.
    struct File: Sendable {
        let bytes: [UInt8]
        let contentType: String
    }

    /// The files by path.
    static let files: [String: File] = [
        "/": File(bytes: PackageResources.index_html, contentType: "text/html; charset=utf-8"),
        "/board.js": File(bytes: PackageResources.board_js, contentType: "text/javascript; charset=utf-8"),
        "/board.css": File(bytes: PackageResources.board_css, contentType: "text/css; charset=utf-8"),
    ]

    /// Adds a GET route for each file.
    func add(to router: Router<some RequestContext>) {
        for (path, file) in PageRoutes.files {
            router.get(RouterPath(path)) { _, _ in
                Response(
                    status: .ok, headers: [.contentType: file.contentType, .cacheControl: "no-cache"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
            }
        }
    }
}
