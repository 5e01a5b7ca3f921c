import Realtime

/// Announcements (DJ interludes, media notices) and the speech that makes a long hold a request.
extension ConversationEngine {
    mutating func handleAnnounce(_ text: String) {
        let message = text.trimmingWhitespace()
        guard !message.isEmpty else { return }
        pendingAnnouncements.append(PendingAnnouncement(text: message, receivedAt: now))
        switch state {
        case .idle, .error:
            // The model speaks it in a conversation of its own: no mic, no listening earcon, ended after the reply.
            startConversation(.text, audioSince: nil, silent: true)
            pendingAnnouncements = [PendingAnnouncement(text: message, receivedAt: now)]
            interludeOnly = true
            log(.info, "announcement: opening a session to speak it")
        case .listening:
            break  // delivered below, after this event
        case .connecting, .userSpeaking, .processing, .fillerSpeaking, .waitingForJarvis, .aiSpeaking:
            log(.info, "announcement waits until the conversation is listening")
        }
    }

    /// Runs after every event: in `listening` with a ready session and no response in flight, the waiting
    /// announcements go out as system items with one `response.create`; stale ones are dropped. A
    /// conversation that only existed for announcements ends once it is back in `listening`.
    mutating func deliverAnnouncementsIfListening() {
        guard state == .listening, sessionReady, !response.active else { return }
        deliverAnnouncementsOrEndInterlude()
    }

    /// Sends the fresh waiting announcements (stale ones are dropped); with none left, a conversation that
    /// only existed for announcements ends.
    mutating func deliverAnnouncementsOrEndInterlude() {
        let maxAge = configuration.announcementMaxAge.wholeMilliseconds
        let fresh = pendingAnnouncements.filter { Int64(now.milliseconds(since: $0.receivedAt)) <= maxAge }
        if fresh.count < pendingAnnouncements.count {
            log(.info, "dropped \(pendingAnnouncements.count - fresh.count) announcement(s) older than \(maxAge / 1000) s")
        }
        pendingAnnouncements = fresh
        if !fresh.isEmpty {
            sendAnnouncements()
        } else if interludeOnly {
            endConversation(earcon: nil, reason: "announcement spoken")
        }
    }

    /// Sends the waiting announcements as system items and asks for the spoken response.
    mutating func sendAnnouncements() {
        let fresh = pendingAnnouncements
        pendingAnnouncements = []
        for announcement in fresh {
            send(.conversationItemCreate(.message(role: .system, text: announcement.text)))
        }
        log(.info, "announcement sent (\(fresh.count))")
        requestResponse(isAnswer: true)
        enter(.processing)
    }

    mutating func handleSpeechDetected() {
        guard hold != nil, hold?.heardSpeech == false else { return }
        hold?.heardSpeech = true
        log(.debug, "push-to-talk: speech heard")
    }
}
