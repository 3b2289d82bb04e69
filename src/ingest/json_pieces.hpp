#pragma once

#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <string_view>

#include "ingest/readers.hpp"

namespace benchwatch::ingest::detail {

// One batch of the array's elements, copied out of the file's buffer so that the file can be read
// on while the batch is parsed.
struct CutBatch {
    std::string text;  // "[" elements "]", with simdjson's padding after `length`
    std::size_t length = 0;
    std::string_view elements() const { return {text.data(), length}; }
    TextOrigin origin;             // where text[0] lies in the file
    std::uintmax_t offset = 0;     // text[0]'s byte offset in the file
    bool closed = true;            // false: the file ended inside the array, so no ']' was added
    bool empty = false;            // a batch after a comma that holds no element: "[{…},]"
    bool closed_by_brace = false;  // the array ended with '}' where ']' belongs: "[{…}}"
};

// A JSON results file whose root object holds one large array (Google Benchmark's "benchmarks"),
// read a batch of the array's elements at a time instead of whole: memory holds a batch and
// simdjson's index of it for each of the two threads that parse them, not the file. Each batch
// is cut from the file at the commas between elements (next_cut) and opened as a JsonInput over
// a JSON array of whole elements (open); its messages give the line and column in the file. The
// bytes are still checked as the whole-text path checks them (UTF-8, then simdjson's validation of
// every batch and of what lies beside the array).
class RootArrayPieces {
  public:
    // Reads `in` (of `size` bytes, for the content hash) up to the opening bracket of the array
    // under `key` in the root object; each batch then holds about `batch_bytes` of the array,
    // more when one element is larger.
    RootArrayPieces(std::istream& in, std::uintmax_t size, std::string_view source,
                    std::string_view key, std::size_t batch_bytes);
    RootArrayPieces(const RootArrayPieces&) = delete;
    RootArrayPieces& operator=(const RootArrayPieces&) = delete;

    // Whether the text opens as a JSON object whose field `key` holds an array. When not,
    // nothing else may be called: the file is one for the whole-text path.
    bool found() const { return found_; }
    // The text up to and including the array's opening bracket.
    const std::string& head() const { return head_; }
    // The file's name in messages.
    const std::string& source() const { return source_; }
    // Copies the next batch of elements into `batch`; false after the last. A file that ends
    // inside the array gives a last batch that ends there too, for simdjson to refuse.
    bool next_cut(CutBatch& batch);
    // Throws the InputError for the first invalid UTF-8 in `batch`, if there is any.
    void check_utf8_of(const CutBatch& batch) const;
    // Starts `input` on `batch`, whose UTF-8 was checked, with `parser` (neither shared with
    // another thread); throws the InputError for what simdjson refuses outright.
    static JsonInput& open(CutBatch& batch, std::string_view source,
                           simdjson::ondemand::parser& parser, std::optional<JsonInput>& input);
    // After a batch failed: throws the InputError for the first invalid UTF-8 in the rest of the
    // file, if there is any, since the whole-text path checks the file's UTF-8 before anything
    // else. A rest that cannot be read leaves the failure met first to stand.
    void check_utf8_of_the_rest();
    // After the last batch: the root object with the array's elements left out, so that what
    // lies beside the array (Google Benchmark's "context") is read as in a whole file.
    JsonInput& rest();
    // After rest(): the content_hash() of the whole file.
    std::uint64_t content_hash() const;

  private:
    // Where the byte at buffer_[at] lies in the file, counting lines up to it.
    TextOrigin origin_of(std::size_t at);
    // Reads more of the file after what the buffer holds, keeping buffer_[keep_from…]; false at
    // the end of the file.
    bool fill(std::size_t keep_from);
    // Scans the array's elements from scanned_ on, noting each comma between elements, until the
    // array closes, the buffer ends or a batch's worth lies behind the last comma.
    void scan_elements();
    // Scans buffer_[at…until) a byte at a time, moving `at`; true when the scan stops there (the
    // array closed or a batch is complete; scanned_ is set), false at `until`.
    bool scan_bytes(std::size_t& at, std::size_t until);
    // Notes the comma at `at` when it lies between elements; true when a batch is complete.
    bool at_comma(std::size_t at);
    // Bytes scanned at once where the processor compares 16 bytes in one instruction.
    static constexpr std::size_t block_bytes = 64;
#if defined(__SSE2__)
    // Bit i set where byte i of a block is a quote, a backslash, an opening or closing bracket
    // or brace, or a comma.
    struct BlockMasks {
        std::uint64_t quote, backslash, open, close, comma;
    };
    static BlockMasks block_masks(const char* bytes);
    // Scans the block_bytes at `at` as scan_bytes() would, all at once: true when the scan stops
    // in it (`at` moved there); false past it (`at` moved on), or, when the block holds a
    // backslash, with `at` unmoved for scan_bytes() to take it.
    bool scan_block(std::size_t& at);
#endif
    // Scans for the opening bracket of the array under `key`; sets found_.
    void scan_head(std::string_view key);
    // Copies buffer_[from…to] into `batch`: its first byte made '[' and, when `close`, the byte
    // at `to` made ']'; without, the text ends at `to` unclosed.
    void cut(std::size_t from, std::size_t to, bool close, CutBatch& batch);
    // Reads what is left of the file after the array into the tail.
    void read_rest();

    std::istream& in_;
    std::string source_;
    std::size_t batch_bytes_;
    std::string buffer_;  // the bytes read and not yet handed over, with simdjson's padding after
    std::size_t filled_ = 0;
    std::size_t scanned_ = 0;                // the next byte the scan looks at
    std::size_t batch_start_ = 0;            // the first byte of the next batch's elements
    std::optional<std::size_t> last_comma_;  // the last comma between elements found so far
    std::optional<std::size_t> array_end_;   // the byte closing the array
    std::uintmax_t buffer_offset_ = 0;       // where buffer_[0] lies in the file
    bool in_string_ = false;
    bool escaped_ = false;
    std::size_t depth_ = 0;  // of brackets and braces inside the current element
    bool end_of_file_ = false;
    bool done_ = false;
    bool emitted_ = false;  // whether a batch was handed over: the next starts at a comma
    bool found_ = false;
    // Lines counted so far: buffer_[counted_] starts at counted_origin_.
    std::size_t counted_ = 0;
    TextOrigin counted_origin_;
    std::string head_;
    std::string rest_text_;
    TextOrigin tail_origin_;
    std::uintmax_t tail_offset_ = 0;
    ContentHasher hasher_;
    simdjson::ondemand::parser parser_;
    std::optional<JsonInput> rest_;
};

// Reads the batches of `pieces` on two threads, each cutting a batch in turn, then parsing it with
// `parse(batch, lane)` while the other thread parses its own, then handing it to
// `consume(batch, lane)` in file order, one batch at a time. `lane` (0 or 1) names the thread, so
// that each keeps what it parsed apart; `consume` is called after a failed `parse` too, to take
// what was parsed before the failure. The first failure in file order is thrown, as reading the
// batches one after another would throw it. With `second_thread` false, or where no thread can be
// started, the calling thread takes every turn alone.
void read_batches_on_two_threads(RootArrayPieces& pieces, bool second_thread,
                                 const std::function<void(JsonInput&, int)>& parse,
                                 const std::function<void(JsonInput&, int)>& consume);

}  // namespace benchwatch::ingest::detail
