import Basics
import Realtime

/// Announcements (DJ interludes, media notices, the owner's `ctl say`) and the speech that makes a long
/// hold a request.
extension ConversationEngine {
    /// The response-level instructions for an owner's announcement: the text is read, not answered.
    static let sayInstructions = """
        You are making an announcement on behalf of the owner of this speaker. Say exactly the text of the \
        last system message, word for word, in its language. Add nothing before or after it, do not answer \
        it, and do not call any tools.
        """

    /// The id of what the box says on its own behalf (a timer, the muted microphone): read verbatim like
    /// the owner's `say`, with nobody waiting for the outcome (`ctl say` ids start at 1).
    static let deviceNoticeID = 0

    /// How the journal names a `say`: "say #3", or "spoken notice" for the box's own.
    static func sayName(_ id: Int) -> String { id == deviceNoticeID ? "spoken notice" : "say #\(id)" }

    mutating func handleAnnounce(_ text: String) {
        let message = text.trimmed()
        guard !message.isEmpty else { return }
        queueAnnouncement(PendingAnnouncement(text: message, receivedAt: now, maxAge: configuration.announcementMaxAge))
    }

    /// `ctl say`: the owner's text, spoken verbatim; `announcementFinished(id)` reports the outcome.
    mutating func handleSay(_ text: String, id: Int) {
        let message = text.trimmed()
        guard !message.isEmpty else {
            emit(.announcementFinished(id: id, failure: "there is nothing to say"))
            return
        }
        log(.info, "\(Self.sayName(id)): queued")
        queueAnnouncement(PendingAnnouncement(text: message, receivedAt: now, maxAge: configuration.sayMaxAge, sayID: id))
    }

    private mutating func queueAnnouncement(_ announcement: PendingAnnouncement) {
        switch state {
        case .idle, .error:
            // The model speaks it in a conversation of its own: no mic, no listening earcon, ended after the reply.
            startConversation(.text, audioSince: nil, silent: true)
            pendingAnnouncements = [announcement]
            interludeOnly = true
            log(.info, "announcement: opening a session to speak it")
        case .listening:
            pendingAnnouncements.append(announcement)  // delivered below, after this event
        case .connecting, .userSpeaking, .processing, .fillerSpeaking, .waitingForJarvis, .aiSpeaking:
            pendingAnnouncements.append(announcement)
            log(.info, "announcement waits until the conversation is listening")
        }
    }

    /// Runs after every event: in `listening` with a ready session and no response in flight, the waiting
    /// announcements go out as system items with one `response.create`; stale ones are dropped. A
    /// conversation that only existed for announcements ends once it is back in `listening`.
    mutating func deliverAnnouncementsIfListening() {
        guard state == .listening, sessionReady, !response.isActive else { return }
        deliverAnnouncementsOrEndInterlude()
    }

    /// Sends the fresh waiting announcements (stale ones are dropped); with none left, a conversation that
    /// only existed for announcements ends.
    mutating func deliverAnnouncementsOrEndInterlude() {
        let fresh = pendingAnnouncements.filter { Int64(now.milliseconds(since: $0.receivedAt)) <= $0.maxAge.wholeMilliseconds }
        if fresh.count < pendingAnnouncements.count {
            let stale = pendingAnnouncements.filter { Int64(now.milliseconds(since: $0.receivedAt)) > $0.maxAge.wholeMilliseconds }
            log(.info, "dropped \(stale.count) announcement(s) older than \(stale[0].maxAge.wholeMilliseconds / 1000) s")
            failSays(in: stale, "it waited too long behind a conversation")
        }
        pendingAnnouncements = fresh
        if !fresh.isEmpty {
            sendAnnouncements()
        } else if interludeOnly {
            endConversation(earcon: nil, reason: "announcement spoken")
        }
    }

    /// Sends the waiting announcements as system items and asks for the spoken response. The owner's
    /// announcements go out one per response, read verbatim with no tools; DJ cues go together.
    mutating func sendAnnouncements() {
        let batch: [PendingAnnouncement]
        if let first = pendingAnnouncements.first, first.sayID != nil {
            batch = [first]
        } else {
            batch = Array(pendingAnnouncements.prefix { $0.sayID == nil })
        }
        pendingAnnouncements.removeFirst(batch.count)
        for announcement in batch {
            send(.conversationItemCreate(.message(role: .system, text: announcement.text)))
        }
        if let id = batch.first?.sayID {
            log(.info, "\(Self.sayName(id)): sent")
            saying = SayInFlight(id: id)
            send(.responseCreate(ResponseOptions(instructions: Self.sayInstructions, toolChoice: .noTools)))
            response.sent(isAnswer: true)
        } else {
            log(.info, "announcement sent (\(batch.count))")
            requestResponse(isAnswer: true)
        }
        enter(.processing)
    }

    /// The owner's announcement in flight has been played out (or came back without any speech).
    mutating func finishSay() {
        guard let current = saying else { return }
        saying = nil
        if current.heardAudio {
            log(.info, "\(Self.sayName(current.id)): spoken")
            emit(.announcementFinished(id: current.id, failure: nil))
        } else {
            log(.warning, "\(Self.sayName(current.id)): the Realtime API answered without speech")
            emit(.announcementFinished(id: current.id, failure: "the Realtime API answered without speech"))
        }
    }

    /// Fails the owner's announcement in flight, if any.
    mutating func failSay(_ reason: String) {
        guard let current = saying else { return }
        saying = nil
        log(.info, "\(Self.sayName(current.id)): not spoken: \(reason)")
        emit(.announcementFinished(id: current.id, failure: reason))
    }

    /// Fails the owner's announcements among `announcements`.
    mutating func failSays(in announcements: [PendingAnnouncement], _ reason: String) {
        for case let id? in announcements.map(\.sayID) {
            log(.info, "\(Self.sayName(id)): not spoken: \(reason)")
            emit(.announcementFinished(id: id, failure: reason))
        }
    }

    mutating func handleSpeechDetected() {
        guard hold != nil, hold?.heardSpeech == false else { return }
        hold?.heardSpeech = true
        log(.debug, "push-to-talk: speech heard")
    }
}
