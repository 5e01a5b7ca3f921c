// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .treatAllWarnings(as: .error)
]

/// One systemLibrary target per C library: a module map and a one-line header; flags from pkg-config.
/// `providers` only prints a hint; `.ci/run` and `scripts/install-deps` install the -dev packages.
func cLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

/// Sample-crunching code (mixer, resamplers' feeding, FFT, delay and drift estimation) is optimized in
/// debug builds too: unoptimized, the tests' seconds of audio cost ~20x the CPU and starve the suites
/// that run beside them on a 2-core machine.
let optimizedInDebug: Set<String> = ["AudioCore", "EchoControl", "EchoControlTests", "AudioEngine", "AudioEngineTests"]

func settings(_ name: String) -> [SwiftSetting] {
    optimizedInDebug.contains(name) ? swiftSettings + [.unsafeFlags(["-O"], .when(configuration: .debug))] : swiftSettings
}

func swiftTarget(_ name: String, _ dependencies: [Target.Dependency] = []) -> Target {
    .target(name: name, dependencies: dependencies, swiftSettings: settings(name))
}

/// Development-only code (test support, the demo, benchmark drivers, stand-ins) lives in DevTools/, apart
/// from the product's Sources/; nothing shipped depends on it.
func devTarget(_ name: String, _ dependencies: [Target.Dependency] = []) -> Target {
    .target(name: name, dependencies: dependencies, path: "DevTools/\(name)", swiftSettings: settings(name))
}

func devExecutable(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: dependencies, path: "DevTools/\(name)", swiftSettings: swiftSettings)
}

func testTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .testTarget(name: name, dependencies: dependencies, swiftSettings: settings(name))
}

let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let serviceLifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let nioCore = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
let nioPosix = Target.Dependency.product(name: "NIOPosix", package: "swift-nio")
let nioHTTP1 = Target.Dependency.product(name: "NIOHTTP1", package: "swift-nio")
let nioWebSocket = Target.Dependency.product(name: "NIOWebSocket", package: "swift-nio")
let nioSSL = Target.Dependency.product(name: "NIOSSL", package: "swift-nio-ssl")

let package = Package(
    name: "jarvis-voice",
    products: [
        .executable(name: "jarvis-voice", targets: ["jarvis-voice"]),
        // Development machines only: the demo (stand-ins, test PCMs) runs the jarvis-voice next to it.
        .executable(name: "jarvis-voice-demo", targets: ["jarvis-voice-demo"]),
        // The paced test PCM (alsa-lib loads it by this name; see DevTools/JVPacedPCM/jvpaced.c).
        .library(name: "asound_module_pcm_jvpaced", type: .dynamic, targets: ["JVPacedPCM"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0")
    ],
    targets: [
        // C layer
        cLibrary("CALSA", pkgConfig: "alsa", apt: "libasound2-dev"),
        cLibrary("CSpeexDSP", pkgConfig: "speexdsp", apt: "libspeexdsp-dev"),
        cLibrary("COpus", pkgConfig: "opus", apt: "libopus-dev"),
        cLibrary("CMPG123", pkgConfig: "libmpg123", apt: "libmpg123-dev"),
        cLibrary("CFAAD2", pkgConfig: "faad2", apt: "libfaad-dev"),
        cLibrary("CVorbis", pkgConfig: "vorbis", apt: "libvorbis-dev"),
        cLibrary("CFLAC", pkgConfig: "flac", apt: "libflac-dev"),
        cLibrary("CCurl", pkgConfig: "libcurl", apt: "libcurl4-openssl-dev"),
        cLibrary("CGPIOD", pkgConfig: "libgpiod", apt: "libgpiod-dev"),
        // per-library shims: what Swift cannot import (variadics, function-like macros, callbacks)
        .target(name: "CALSAShim", dependencies: ["CALSA"]),
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        .target(name: "CGPIODShim", dependencies: ["CGPIOD"]),
        .target(name: "COpusShim", dependencies: ["COpus"]),
        .target(name: "CPosixShim"),
        .target(
            name: "JVPacedPCM", dependencies: ["CALSA"], path: "DevTools/JVPacedPCM", cSettings: [.define("PIC")],
            linkerSettings: [.linkedLibrary("m")]),

        // pure
        swiftTarget("AudioCore"),
        swiftTarget("Basics"),

        // wrappers
        swiftTarget("ALSA", ["CALSA", "CALSAShim", "AudioCore"]),
        swiftTarget("SpeexDSP", ["CSpeexDSP"]),
        swiftTarget("HTTP", ["CCurl", "CCurlShim", "Basics"]),
        swiftTarget("GPIO", ["CGPIODShim", "Basics"]),
        swiftTarget("Codecs", ["CMPG123", "COpus", "COpusShim", "CFAAD2", "CVorbis", "CFLAC", "AudioCore"]),

        // signal processing: echo control and near-end detection, pure (no devices, threads or loops)
        swiftTarget("EchoControl", ["AudioCore", "SpeexDSP"]),

        // engines
        swiftTarget("AudioEngine", ["AudioCore", "Basics", "ALSA", "SpeexDSP", "EchoControl", "CPosixShim", logging, serviceLifecycle]),
        swiftTarget("Realtime", ["AudioCore", "Basics", nioCore, nioPosix, nioHTTP1, nioWebSocket, nioSSL, logging, serviceLifecycle]),
        swiftTarget("Jarvis", ["HTTP", "Basics", logging]),
        swiftTarget("Media", ["AudioCore", "Basics", "Codecs", "HTTP", logging, serviceLifecycle]),
        swiftTarget("Snapcast", ["Basics"]),

        // product
        swiftTarget("Configuration", ["AudioCore", "Basics", "EchoControl", "Realtime", logging]),
        swiftTarget("Systemd", ["Basics", logging]),
        swiftTarget("Control", ["Basics", logging, nioCore, nioPosix, serviceLifecycle]),
        // multi-room: the box as a player of a Snapcast group, on the mixer's rooms input
        swiftTarget("Rooms", ["AudioCore", "AudioEngine", "Codecs", "Snapcast", "Basics", logging, serviceLifecycle, nioCore, nioPosix]),
        swiftTarget("Conversation", ["Realtime", "Jarvis", "Media", "AudioCore", "Basics", "AudioEngine", logging, serviceLifecycle]),

        // executable
        .executableTarget(
            name: "jarvis-voice",
            dependencies: [
                "AudioCore", "Basics", "ALSA", "SpeexDSP", "EchoControl", "AudioEngine", "Configuration", "Systemd", "GPIO",
                "Control", "HTTP", "Jarvis", "Media", "Conversation", "Realtime", "Rooms", "Snapcast", serviceLifecycle,
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                logging
            ],
            swiftSettings: swiftSettings
        ),

        // dev exe: `jarvis-voice demo` forwards here; the service against the stand-ins on the paced test PCMs.
        devExecutable(
            "jarvis-voice-demo",
            [
                "ALSATestbed", "AudioCore", "Basics", "Realtime", "Systemd", "TestProcess", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ]),

        // dev exe: the endurance run (Benchmarks/soak): the service next to it against the stand-ins for an hour.
        devExecutable(
            "jarvis-voice-soak",
            [
                "ALSATestbed", "Basics", "Realtime", "TestProcess", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ]),

        // test support: PCMs (file plugin and the paced plugin), in-process stand-in servers, tools
        devTarget("ALSATestbed", ["ALSA", "TestProcess"]),
        devTarget("TestProcess", ["CPosixShim"]),
        devTarget("TestSupport", ["AudioCore", "Control", "Realtime", "Basics", "TestProcess", logging, nioCore, nioPosix, nioHTTP1, nioWebSocket]),
        devExecutable("media-bench", ["Codecs", "AudioEngine", "AudioCore"]),
        devExecutable("capture-bench", ["EchoControl", "AudioCore"]),
        // scripts/vm-test: the stand-in servers for the test VM (dev only; not in the package).
        devExecutable("vm-standins", ["TestSupport", "ALSATestbed", "Realtime", "Basics"]),
        // Dumps what the parsers make of files as JSON, for Benchmarks/parsers (dev-only).
        devExecutable("parse-dump", ["Media", "Configuration", "Basics"]),
        devExecutable("rtcheck-probe", ["AudioCore"]),

        // tests
        testTarget("AudioCoreTests", ["AudioCore", "TestProcess"]),
        testTarget("BasicsTests", ["Basics"]),
        testTarget("ALSATests", ["ALSA", "ALSATestbed", "AudioCore", "TestProcess", "TestSupport"]),
        testTarget("GPIOTests", ["GPIO", "Basics", "TestProcess"]),
        testTarget("SpeexDSPTests", ["SpeexDSP"]),
        testTarget("ConfigurationTests", ["Configuration", "Basics", "TestProcess"]),
        testTarget("SystemdTests", ["Systemd", "TestProcess", logging]),
        testTarget("HTTPTests", ["HTTP", "Basics", "TestSupport"]),
        testTarget("JarvisTests", ["Jarvis", "Basics", "HTTP", "TestSupport", logging]),
        testTarget("ControlTests", ["Control", "Basics", "TestSupport", "TestProcess", nioCore, nioPosix, nioHTTP1, serviceLifecycle]),
        testTarget("EchoControlTests", ["EchoControl", "AudioCore", "TestSupport"]),
        testTarget("AudioEngineTests", ["AudioEngine", "EchoControl", "AudioCore", "Basics", "ALSA", "ALSATestbed", "TestProcess", "TestSupport"]),
        testTarget("RealtimeTests", ["Realtime", "TestProcess", "TestSupport", "AudioCore", "Basics", logging, nioCore]),
        testTarget("CodecsTests", ["Codecs", "AudioCore", "TestSupport"]),
        testTarget("MediaTests", ["Media", "Codecs", "HTTP", "AudioCore", "Basics", "TestProcess", "TestSupport", logging, serviceLifecycle]),
        testTarget("TestProcessTests", ["TestProcess"]),
        testTarget("SnapcastTests", ["Snapcast", "Basics", "TestSupport", "TestProcess"]),
        // The command-line tests: they run the built `jarvis-voice` (run, demo, ctl, doctor, check-config,
        // audio-check, devices) as a child process.
        testTarget("CLITests", ["ALSATestbed", "AudioCore", "Basics", "Control", "Realtime", "Rooms", "Snapcast", "TestProcess", "TestSupport"]),
        testTarget(
            "ConversationTests",
            [
                "Conversation", "Media", "Realtime", "Jarvis", "HTTP", "AudioCore", "Basics", "AudioEngine", "TestProcess", "TestSupport", logging,
                serviceLifecycle
            ])
    ]
)

// libFuzzer targets (Fuzz/): only when JARVIS_FUZZ=1, so `swift build`/`swift test` and the shipped
// product never see them. `scripts/fuzz` sets it and builds with `-sanitize=fuzzer,address`.
if Context.environment["JARVIS_FUZZ"] == "1" {
    package.targets.append(
        .executableTarget(
            name: "jarvis-fuzz",
            dependencies: [
                "Configuration", "Media", "Jarvis", "Codecs", "AudioCore", "Basics", "Realtime", "Control",
                "Snapcast", nioCore, .product(name: "NIOEmbedded", package: "swift-nio")
            ],
            path: "Fuzz/jarvis-fuzz",
            swiftSettings: swiftSettings + [.enableExperimentalFeature("Extern")]
        ))
}
