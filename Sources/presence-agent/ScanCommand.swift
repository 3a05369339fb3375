import ArgumentParser
import BeaconCore
import BluetoothHCI
import PresenceAgent

#if canImport(Glibc)
import Glibc
#endif

/// `presence-agent scan`: print what a source hears, one line per advertising report.
struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Print one line per advertising report a source hears.",
        discussion: "Sources: btsnoop:FILE (a capture). Exit status 2 for a bad source or file."
    )

    @Option(name: .long, help: "Where advertisements come from: btsnoop:FILE.")
    var source: String

    @Flag(name: .long, help: "One JSON object per line (MQTT.md field names).")
    var json = false

    func run() throws {
        let specification: SourceSpecification
        do {
            specification = try SourceSpecification(parsing: source)
        } catch {
            fail(error.description)
        }
        switch specification {
        case .btsnoop(let path):
            var output = OutputBuffer()
            let format = json ? ScanLineFormatter.json : ScanLineFormatter.text
            do {
                let decoder = try CaptureScan.forEachAdvertisement(inFile: path) { output.line(format($0)) }
                output.flush()
                if decoder.malformedEventCount > 0, let error = decoder.lastError {
                    printError("\(path): skipped \(decoder.malformedEventCount) malformed advertising events (last: \(error))")
                }
            } catch {
                output.flush()
                fail("\(path): \(error)")
            }
        default:
            fail("--source '\(source)': scan reads btsnoop captures so far; live sources come with 'presence-agent run'")
        }
    }

    private func fail(_ message: String) -> Never {
        printError("error: " + message)
        Glibc.exit(2)
    }
}

/// Collects lines and writes them in large blocks: a capture can hold millions of reports.
struct OutputBuffer {
    private var text = ""

    mutating func line(_ line: String) {
        text += line
        text += "\n"
        if text.utf8.count >= 64 * 1024 { flush() }
    }

    mutating func flush() {
        guard !text.isEmpty else { return }
        writeAll(text, to: STDOUT_FILENO)
        text = ""
    }
}

func printError(_ message: String) {
    writeAll(message + "\n", to: STDERR_FILENO)
}

/// Writes straight to the descriptor: `stdout`/`stderr` are C globals Swift 6 will not touch.
func writeAll(_ text: String, to descriptor: Int32) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
        if written <= 0 { if errno == EINTR { continue } else { return } }
        offset += written
    }
}
