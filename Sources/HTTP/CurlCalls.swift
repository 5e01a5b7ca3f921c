import Basics
import CCurl
import CCurlShim
import Glibc
import Synchronization

/// The only file that calls libcurl. A `CurlWorker` owns one multi handle and one thread that
/// drives it with `curl_multi_poll`; other threads talk to it through a command queue plus
/// `curl_multi_wakeup`. Every easy handle lives and dies on the worker thread.
final class CurlWorker: @unchecked Sendable {
    enum Command {
        case add(HTTPRequest, TransferState)
        case cancel(Int)
        case resume(Int)
        case shutdown
    }

    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

    private let multi: UnsafeMutableRawPointer
    private let commands = Mutex<[Command]>([])
    private let stopped = Atomic<Bool>(false)
    // Worker-thread-only state.
    private var transfers: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var transfersByID: [Int: CurlTransfer] = [:]

    init() throws(HTTPError) {
        let initCode = CurlWorker.globalInit
        guard initCode == CURLE_OK else {
            throw HTTPError(
                kind: .other, host: "(no host)", function: "curl_global_init", code: Int32(initCode.rawValue),
                detail: String(cString: curl_easy_strerror(initCode)))
        }
        guard let multi = curl_multi_init() else {
            throw HTTPError(kind: .other, host: "(no host)", function: "curl_multi_init", detail: "returned NULL")
        }
        self.multi = multi
    }

    deinit {
        curl_multi_cleanup(multi)
    }

    /// Queues a command for the worker thread (thread-safe). Returns false after shutdown.
    @discardableResult
    func submit(_ command: Command) -> Bool {
        let accepted = commands.withLock { queue -> Bool in
            if stopped.load(ordering: .acquiring) { return false }
            if case .shutdown = command { stopped.store(true, ordering: .releasing) }
            queue.append(command)
            return true
        }
        if accepted { curl_multi_wakeup(multi) }
        return accepted
    }

    /// The worker thread's body; returns after `.shutdown`.
    func run() {
        var running: Int32 = 0
        while true {
            let pending = commands.withLock { queue -> [Command] in
                let taken = queue
                queue.removeAll()
                return taken
            }
            for command in pending {
                switch command {
                case .add(let request, let state): add(request, state)
                case .cancel(let id):
                    if let transfer = transfersByID[id] {
                        remove(transfer, failure: transfer.error(.cancelled, "curl_multi_remove_handle", nil, "cancelled by the caller"))
                    }
                case .resume(let id):
                    if let transfer = transfersByID[id], transfer.paused {
                        transfer.paused = false
                        transfer.lastActivity = .now
                        let code = curl_easy_pause(transfer.easy, CURLPAUSE_CONT)
                        if code != CURLE_OK {
                            remove(transfer, failure: transfer.curlError("curl_easy_pause", code))
                        }
                    }
                case .shutdown:
                    for transfer in Array(transfersByID.values) {
                        remove(transfer, failure: transfer.error(.clientShutDown, "curl_multi_remove_handle", nil, "the HTTP client shut down"))
                    }
                    return
                }
            }

            let performCode = curl_multi_perform(multi, &running)
            if performCode != CURLM_OK {
                let detail = String(cString: curl_multi_strerror(performCode))
                for transfer in Array(transfersByID.values) {
                    remove(transfer, failure: transfer.error(.other, "curl_multi_perform", Int32(performCode.rawValue), detail))
                }
            }
            readMessages()
            let waitMs = enforceDeadlines()
            _ = curl_multi_poll(multi, nil, 0, waitMs, nil)
        }
    }

    private func add(_ request: HTTPRequest, _ state: TransferState) {
        let transfer: CurlTransfer
        do {
            transfer = try CurlTransfer(request: request, state: state)
        } catch {
            state.finish(error)
            return
        }
        let code = curl_multi_add_handle(multi, transfer.easy)
        guard code == CURLM_OK else {
            state.finish(transfer.error(.other, "curl_multi_add_handle", Int32(code.rawValue), String(cString: curl_multi_strerror(code))))
            return
        }
        transfers[transfer.easy] = transfer
        transfersByID[state.id] = transfer
    }

    private func remove(_ transfer: CurlTransfer, failure: HTTPError?) {
        // Removing an unfinished transfer makes curl close its connection, which is how the server
        // learns about a cancel.
        curl_multi_remove_handle(multi, transfer.easy)
        transfers[transfer.easy] = nil
        transfersByID[transfer.state.id] = nil
        transfer.complete(failure)
    }

    private func readMessages() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                let transfer = transfers[easy]
            else { continue }
            let result = cshim_curl_msg_result(message)
            remove(transfer, failure: result == CURLE_OK ? nil : transfer.curlError("curl_multi_perform", result))
        }
    }

    /// Aborts transfers past their inactivity or total deadline; returns how long to poll (ms).
    private func enforceDeadlines() -> Int32 {
        let now = ContinuousClock.now
        // Idle: sleep long; commands arrive with curl_multi_wakeup anyway.
        var wait = transfersByID.isEmpty ? Duration.seconds(10) : Duration.seconds(1)
        for transfer in Array(transfersByID.values) {
            if let total = transfer.totalTimeout {
                let left = transfer.started + total - now
                if left <= .zero {
                    remove(transfer, failure: transfer.error(.totalTimeout, "curl_multi_poll", nil, "no complete response within \(total)"))
                    continue
                }
                wait = min(wait, left)
            }
            if let idle = transfer.inactivityTimeout, !transfer.paused {
                let left = transfer.lastActivity + idle - now
                if left <= .zero {
                    remove(transfer, failure: transfer.error(.inactivityTimeout, "curl_multi_poll", nil, "no data received for \(idle)"))
                    continue
                }
                wait = min(wait, left)
            }
        }
        let ms = wait.wholeMilliseconds
        return Int32(max(1, min(10_000, ms + 1)))
    }
}

/// One easy handle and its request state; touched only on the worker thread.
final class CurlTransfer {
    let easy: UnsafeMutableRawPointer
    let state: TransferState
    let started: ContinuousClock.Instant
    var lastActivity: ContinuousClock.Instant
    let inactivityTimeout: Duration?
    let totalTimeout: Duration?
    var paused = false

    private let followsRedirects: Bool
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// Status lines curl treats as "HTTP/1.0 200": old Shoutcast servers answer `ICY 200 OK`.
    private var statusAliases: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var status = 0
    private var headerLines: [HTTPHeader] = []
    private var headDelivered = false

    init(request: HTTPRequest, state: TransferState) throws(HTTPError) {
        guard let easy = curl_easy_init() else {
            throw HTTPError(kind: .other, host: state.host, function: "curl_easy_init", detail: "returned NULL")
        }
        self.easy = easy
        self.state = state
        self.started = .now
        self.lastActivity = .now
        self.inactivityTimeout = request.inactivityTimeout
        self.totalTimeout = request.totalTimeout
        self.followsRedirects = request.maxRedirects > 0
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        try configure(request)
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        curl_slist_free_all(statusAliases)
        errorBuffer.deallocate()
    }

    private func configure(_ request: HTTPRequest) throws(HTTPError) {
        func check(_ code: CURLcode, _ option: String) throws(HTTPError) {
            guard code == CURLE_OK else {
                throw HTTPError(
                    kind: .invalidRequest, host: state.host, function: "curl_easy_setopt(\(option))",
                    code: Int32(code.rawValue), detail: String(cString: curl_easy_strerror(code)))
            }
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        try check(cshim_curl_setopt_string(easy, CURLOPT_URL, request.url), "CURLOPT_URL")
        try check(cshim_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
        try check(cshim_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        try check(cshim_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.connectTimeout)), "CURLOPT_CONNECTTIMEOUT_MS")
        try check(cshim_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, request.maxRedirects > 0 ? 1 : 0), "CURLOPT_FOLLOWLOCATION")
        try check(cshim_curl_setopt_long(easy, CURLOPT_MAXREDIRS, max(0, request.maxRedirects)), "CURLOPT_MAXREDIRS")
        try check(cshim_curl_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1)), "CURLOPT_HTTP_VERSION")
        try check(cshim_curl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"), "CURLOPT_PROTOCOLS_STR")
        try check(cshim_curl_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"), "CURLOPT_REDIR_PROTOCOLS_STR")
        statusAliases = curl_slist_append(nil, "ICY 200")
        if let statusAliases { try check(cshim_curl_setopt_slist(easy, CURLOPT_HTTP200ALIASES, statusAliases), "CURLOPT_HTTP200ALIASES") }

        let method = request.method.uppercased()
        switch method {
        case "GET": break
        case "HEAD": try check(cshim_curl_setopt_long(easy, CURLOPT_NOBODY, 1), "CURLOPT_NOBODY")
        case "POST": try check(cshim_curl_setopt_long(easy, CURLOPT_POST, 1), "CURLOPT_POST")
        default: try check(cshim_curl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method), "CURLOPT_CUSTOMREQUEST")
        }
        if let body = request.body {
            try check(cshim_curl_setopt_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)), "CURLOPT_POSTFIELDSIZE_LARGE")
            let code = body.withUnsafeBytes { raw in
                cshim_curl_setopt_pointer(
                    easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(errorBuffer)))
            }
            try check(code, "CURLOPT_COPYPOSTFIELDS")
        }

        var lines = request.headers.map { "\($0.name): \($0.value)" }
        if request.body != nil { lines.append("Expect:") }  // no 100-continue round trip
        for line in lines {
            if line.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
                throw HTTPError(kind: .invalidRequest, host: state.host, function: "curl_slist_append", detail: "a header contains a line break")
            }
            guard let appended = curl_slist_append(headerList, line) else {
                throw HTTPError(kind: .other, host: state.host, function: "curl_slist_append", detail: "returned NULL")
            }
            headerList = appended
        }
        if let headerList { try check(cshim_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList), "CURLOPT_HTTPHEADER") }

        try check(cshim_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, context), "CURLOPT_HEADERDATA")
        try check(
            cshim_curl_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION) { pointer, size, count, context in
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
                return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: pointer, count: size * count))
            }, "CURLOPT_HEADERFUNCTION")
        try check(cshim_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, context), "CURLOPT_WRITEDATA")
        try check(
            cshim_curl_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION) { pointer, size, count, context in
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
                return transfer.receiveBody(UnsafeRawBufferPointer(start: pointer, count: size * count))
            }, "CURLOPT_WRITEFUNCTION")
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        max(1, Int(duration.wholeMilliseconds))
    }

    // MARK: callbacks (inside curl_multi_perform / curl_easy_pause)

    private func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        lastActivity = .now
        var length = bytes.count
        while length > 0, bytes[length - 1] == 0x0A || bytes[length - 1] == 0x0D { length -= 1 }
        let line = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<length]), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headerLines.removeAll()
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        } else if line.isEmpty {
            let interim = (100..<200).contains(status)
            let redirect = followsRedirects && (300..<400).contains(status) && headerLines.contains { $0.name.lowercased() == "location" }
            if !interim && !redirect { deliverHeadOnce() }
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headerLines.append(HTTPHeader(name, String(value)))
        }
        return bytes.count
    }

    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        lastActivity = .now
        deliverHeadOnce()
        if state.deliverBody(bytes) { return bytes.count }
        paused = true
        return cshim_curl_writefunc_pause()
    }

    private func deliverHeadOnce() {
        guard !headDelivered else { return }
        headDelivered = true
        var code = 0
        if cshim_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK, code != 0 { status = code }
        state.deliverHead(HTTPResponseHead(status: status, headers: headerLines))
    }

    func complete(_ failure: HTTPError?) {
        if failure == nil { deliverHeadOnce() }
        state.finish(failure)
    }

    // MARK: errors

    func error(_ kind: HTTPError.Kind, _ function: String, _ code: Int32?, _ detail: String) -> HTTPError {
        HTTPError(kind: kind, host: state.host, function: function, code: code, detail: detail)
    }

    func curlError(_ function: String, _ code: CURLcode) -> HTTPError {
        let buffered = String(cString: errorBuffer)
        let detail = buffered.isEmpty ? String(cString: curl_easy_strerror(code)) : buffered
        let kind: HTTPError.Kind
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: kind = .couldNotResolve
        case CURLE_COULDNT_CONNECT: kind = .couldNotConnect
        case CURLE_OPERATION_TIMEDOUT: kind = headDelivered ? .inactivityTimeout : .connectTimeout
        case CURLE_TOO_MANY_REDIRECTS: kind = .tooManyRedirects
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE:
            kind = .tls
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE: kind = .connectionLost
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: kind = .invalidRequest
        default: kind = .other
        }
        return HTTPError(kind: kind, host: state.host, function: function, code: Int32(code.rawValue), detail: detail)
    }
}
