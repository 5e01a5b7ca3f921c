import CShims
import Glibc

/// Runs one of this package's built executables (they sit next to the test binary) for tests.
public enum TestProcess {
    /// The directory of the running executable (e.g. `.build/debug`).
    public static var buildDirectory: String? { PacedPlugin.executableDirectory() }

    /// Runs `program` with `arguments`, extra `environment` entries ("KEY=value") added to ours,
    /// stdout and stderr captured to `outputPath`. Returns the exit status (-1 if it did not run).
    public static func run(
        _ program: String, _ arguments: [String], environment: [String] = [], outputPath: String
    ) -> Int32 {
        var argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) }
        argv.append(nil)
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) }
        var index = 0
        while let entry = environ[index] {
            envp.append(strdup(entry))
            index += 1
        }
        envp.append(nil)
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Children must not inherit this process's descriptors: NIO's sockets are not close-on-exec,
        // and a child holding a test server's listening socket keeps it accepting after the server
        // stopped (connections then reset instead of being refused) while suites run in parallel.
        cshim_spawn_actions_close_from(&actions, 3)
        var pid: pid_t = 0
        guard posix_spawn(&pid, program, &actions, nil, argv, envp) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }
}
