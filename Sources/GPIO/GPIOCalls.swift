import CGPIODShim
import Glibc

/// An owned libgpiod-backed handle from CGPIODShim; the owning class frees it exactly once.
struct GPIOHandle: @unchecked Sendable {
    let raw: OpaquePointer
}

/// The only caller of the CGPIODShim GPIO API (and of the POSIX calls the GPIO threads need).
/// Turns NULL/-1 returns into `GPIOError`s naming the failed C function; retries EINTR.
enum GPIOCalls {
    static var backend: Int { Int(cshim_gpio_backend()) }
    static var libraryVersion: String { String(cString: cshim_gpio_library_version()) }
    static var kernelDebounceSupported: Bool { cshim_gpio_kernel_debounce_supported() != 0 }

    static func monotonicNanoseconds() -> Int64 {
        Int64(truncatingIfNeeded: cshim_gpio_monotonic_ns())
    }

    // MARK: input

    static func openInput(
        chip: String, line: Int, activeLow: Bool, bias: Int32, debounceMicroseconds: UInt32,
        consumer: String
    ) throws(GPIOError) -> GPIOHandle {
        guard let offset = UInt32(exactly: line) else {
            throw GPIOError(.openInput, call: "gpiod_chip_get_line", chip: chip, line: line, errno: EINVAL)
        }
        var failed: UnsafePointer<CChar>?
        let handle = cshim_gpio_input_open(chip, offset, activeLow ? 1 : 0, bias, debounceMicroseconds, consumer, &failed)
        guard let handle else {
            throw GPIOError(.openInput, call: name(failed), chip: chip, line: line, errno: Glibc.errno)
        }
        return GPIOHandle(raw: handle)
    }

    static func inputFD(_ h: GPIOHandle) -> Int32 {
        cshim_gpio_input_fd(h.raw)
    }

    /// Reads the queued edges (at most 16). Call only when the fd is readable, else it blocks.
    static func readEdges(_ h: GPIOHandle, chip: String, line: Int) throws(GPIOError) -> [GPIOEdge] {
        var buffer = [cshim_gpio_edge](repeating: cshim_gpio_edge(), count: 16)
        while true {
            var failed: UnsafePointer<CChar>?
            let n = buffer.withUnsafeMutableBufferPointer { cshim_gpio_input_read_edges(h.raw, $0.baseAddress, 16, &failed) }
            if n >= 0 {
                return buffer.prefix(Int(n)).map {
                    GPIOEdge(rising: $0.rising != 0, timestamp: MonotonicInstant(nanoseconds: Int64(truncatingIfNeeded: $0.timestamp_ns)))
                }
            }
            let e = Glibc.errno
            if e == EINTR { continue }
            throw GPIOError(.readEdges, call: name(failed), chip: chip, line: line, errno: e)
        }
    }

    static func inputValue(_ h: GPIOHandle, chip: String, line: Int) throws(GPIOError) -> Bool {
        var failed: UnsafePointer<CChar>?
        let v = cshim_gpio_input_get_value(h.raw, &failed)
        guard v >= 0 else { throw GPIOError(.readValue, call: name(failed), chip: chip, line: line, errno: Glibc.errno) }
        return v != 0
    }

    static func closeInput(_ h: GPIOHandle) {
        cshim_gpio_input_close(h.raw)
    }

    // MARK: output

    static func openOutput(chip: String, line: Int, activeLow: Bool, initial: Bool, consumer: String) throws(GPIOError) -> GPIOHandle {
        guard let offset = UInt32(exactly: line) else {
            throw GPIOError(.openOutput, call: "gpiod_chip_get_line", chip: chip, line: line, errno: EINVAL)
        }
        var failed: UnsafePointer<CChar>?
        guard let handle = cshim_gpio_output_open(chip, offset, activeLow ? 1 : 0, initial ? 1 : 0, consumer, &failed) else {
            throw GPIOError(.openOutput, call: name(failed), chip: chip, line: line, errno: Glibc.errno)
        }
        return GPIOHandle(raw: handle)
    }

    static func setOutput(_ h: GPIOHandle, _ value: Bool, chip: String, line: Int) throws(GPIOError) {
        var failed: UnsafePointer<CChar>?
        while cshim_gpio_output_set_value(h.raw, value ? 1 : 0, &failed) < 0 {
            let e = Glibc.errno
            if e == EINTR { continue }
            throw GPIOError(.setValue, call: name(failed), chip: chip, line: line, errno: e)
        }
    }

    static func closeOutput(_ h: GPIOHandle) {
        cshim_gpio_output_close(h.raw)
    }

    // MARK: chip info

    static func readChip(path: String) throws(GPIOError) -> GPIOChipInfo {
        var failed: UnsafePointer<CChar>?
        guard let chip = cshim_gpio_chip_open(path, &failed) else {
            throw GPIOError(.openChip, call: name(failed), chip: path, errno: Glibc.errno)
        }
        defer { cshim_gpio_chip_close(chip) }
        let count = Int(cshim_gpio_chip_num_lines(chip))
        var lines: [GPIOLineInfo] = []
        lines.reserveCapacity(count)
        var nameBuffer = [CChar](repeating: 0, count: 64)
        var consumerBuffer = [CChar](repeating: 0, count: 64)
        for offset in 0..<count {
            var flags: Int32 = 0
            let rc = nameBuffer.withUnsafeMutableBufferPointer { n in
                consumerBuffer.withUnsafeMutableBufferPointer { c in
                    cshim_gpio_chip_line_info(chip, UInt32(offset), n.baseAddress, n.count, c.baseAddress, c.count, &flags, &failed)
                }
            }
            guard rc == 0 else { throw GPIOError(.lineInfo, call: name(failed), chip: path, line: offset, errno: Glibc.errno) }
            lines.append(
                GPIOLineInfo(
                    offset: offset, name: nonEmpty(nameBuffer), consumer: nonEmpty(consumerBuffer),
                    isUsed: flags & Int32(CSHIM_GPIO_LINE_USED) != 0,
                    isOutput: flags & Int32(CSHIM_GPIO_LINE_OUTPUT) != 0,
                    isActiveLow: flags & Int32(CSHIM_GPIO_LINE_ACTIVE_LOW) != 0))
        }
        return GPIOChipInfo(
            path: path, name: String(cString: cshim_gpio_chip_name(chip)),
            label: String(cString: cshim_gpio_chip_label(chip)), lines: lines)
    }

    /// Names in `directory` that look like GPIO character devices (`gpiochipN`).
    static func chipNames(in directory: String) throws(GPIOError) -> [String] {
        guard let dir = opendir(directory) else {
            throw GPIOError(.listChips, call: "opendir", chip: directory, errno: Glibc.errno)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name.hasPrefix("gpiochip") { names.append(name) }
        }
        return names
    }

    // MARK: event threads

    static func openWakeFD(chip: String) throws(GPIOError) -> Int32 {
        let fd = cshim_gpio_wake_fd_open()
        guard fd >= 0 else { throw GPIOError(.eventThread, call: "eventfd", chip: chip, errno: Glibc.errno) }
        return fd
    }

    static func signalWakeFD(_ fd: Int32) {
        _ = cshim_gpio_wake_fd_signal(fd)
    }

    static func drainWakeFD(_ fd: Int32) {
        cshim_gpio_wake_fd_drain(fd)
    }

    static func closeFD(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// poll() on the line fd (-1: none) and the wake fd; EINTR counts as a timeout.
    static func poll(lineFD: Int32, wakeFD: Int32, timeoutMilliseconds: Int32) -> (line: Bool, wake: Bool) {
        var line: Int32 = 0
        var wake: Int32 = 0
        let rc = cshim_gpio_poll(lineFD, wakeFD, timeoutMilliseconds, &line, &wake)
        if rc < 0 { return (false, false) }
        return (line != 0, wake != 0)
    }

    /// Starts a joinable pthread named `name` (at most 15 bytes) running `body`.
    static func startThread(name: String, chip: String, _ body: @escaping @Sendable () -> Void) throws(GPIOError) -> pthread_t {
        final class Box {
            let name: String
            let body: @Sendable () -> Void
            init(name: String, body: @escaping @Sendable () -> Void) {
                self.name = name
                self.body = body
            }
        }
        let box = Unmanaged.passRetained(Box(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                cshim_gpio_name_thread(box.name)
                box.body()
                return nil
            }, box)
        if rc != 0 {
            Unmanaged<Box>.fromOpaque(box).release()
            throw GPIOError(.eventThread, call: "pthread_create", chip: chip, errno: rc)
        }
        return thread
    }

    static func join(_ thread: pthread_t) {
        _ = pthread_join(thread, nil)
    }

    private static func name(_ failed: UnsafePointer<CChar>?) -> String {
        failed.map { String(cString: $0) } ?? "libgpiod"
    }

    private static func nonEmpty(_ buffer: [CChar]) -> String? {
        let s = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return s.isEmpty ? nil : s
    }
}
