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

/// The appliance implements this; `ControlServer` calls it once per request, concurrently for concurrent
/// clients. Past `ControlServer.Limits.handlerTimeout` the client gets a timeout error and the call is
/// cancelled, so start long work (an `ask`) and answer at once.
public protocol ControlHandler: Sendable {
    func handle(_ command: ControlCommand) async -> ControlResponse
}
