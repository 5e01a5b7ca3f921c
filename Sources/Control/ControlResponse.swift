/// What a `ControlHandler` answers. On the wire (one line):
/// `status` -> `{"ok":true,"result":{...ServiceStatus...}}`,
/// `done` -> `{"ok":true,"result":{"message":"..."}}`, `failed` -> `{"ok":false,"error":"..."}`.
public enum ControlResponse: Sendable, Equatable {
    case status(ServiceStatus)
    /// Success, with a short human line (`ctl` prints it), e.g. "listening", "volume 0.4".
    case done(String)
    /// The command was understood but could not be carried out; the text says why.
    case failed(String)
}

/// The appliance implements this; `ControlServer` calls it once per request, concurrently for
/// concurrent clients. Keep it quick: start long work (an `ask`) and answer at once. When it takes
/// longer than `ControlServer.Limits.handlerTimeout` the client is answered with a timeout error at
/// once and the call is cancelled (a call that ignores cancellation only keeps its connection open).
public protocol ControlHandler: Sendable {
    func handle(_ command: ControlCommand) async -> ControlResponse
}
