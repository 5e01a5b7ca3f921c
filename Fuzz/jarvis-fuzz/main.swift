// libFuzzer driver. Built only by `scripts/fuzz` (JARVIS_FUZZ=1 adds this target to the package,
// compiled with `-sanitize=fuzzer,address -parse-as-library`). SwiftPM links executables with `main`
// aliased to `jarvis_fuzz_main`, so this defines that and hands over to libFuzzer's own driver
// (`LLVMFuzzerRunDriver`) instead of libFuzzer's `main`. `FUZZ_TARGET` picks the parser; see `FuzzTarget`.
#if canImport(Glibc)
    import Glibc
#endif

@_extern(c, "LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

private let selected: FuzzTarget = {
    let name = getenv("FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: " ")
        let message = Array("jarvis-fuzz: set FUZZ_TARGET to one of: \(names)\n".utf8)
        _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(2)
    }
    return target
}()

/// One input. libFuzzer's archive references this symbol even when its own `main` is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selected.run(bytes)
    return 0
}

@_cdecl("jarvis_fuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    _ = selected  // an unknown FUZZ_TARGET stops here, before libFuzzer starts
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzOneInput(data, size) }
}
