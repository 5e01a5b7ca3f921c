import Testing

/// The heaviest end-to-end suites (each runs `jarvis-voice run` with its audio chain on paced devices for
/// tens of seconds, some several in a row) take turns instead of joining everything else at once: on two
/// cores they would otherwise starve the whole test run.
@Suite(.serialized) enum ServicesOneAtATime {}
