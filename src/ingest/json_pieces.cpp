#include "ingest/json_pieces.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace benchwatch::ingest::detail {

namespace {

// Bytes read at a time from the file after the array.
constexpr std::size_t read_bytes = std::size_t{1} << 20;

// How far the head (everything before the array) may reach before the file is left to the
// whole-text path: Google Benchmark's context is a few KB.
constexpr std::size_t max_head_bytes = std::size_t{16} << 20;

bool is_whitespace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

#if defined(__SSE2__)
// Bits set where the 64 bytes at `bytes` are `wanted`, byte i at bit i.
std::uint64_t bytes_equal(const __m128i (&chunks)[4], char wanted) {
    const __m128i all = _mm_set1_epi8(wanted);
    std::uint64_t mask = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        const auto lanes =
            static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunks[i], all)));
        mask |= static_cast<std::uint64_t>(lanes) << (16 * i);
    }
    return mask;
}
#endif

// Bit i set where an odd count of the bits 0…i of `bits` are set.
std::uint64_t prefix_xor(std::uint64_t bits) {
    for (int shift = 1; shift < 64; shift *= 2) bits ^= bits << shift;
    return bits;
}

}  // namespace

#if defined(__SSE2__)
RootArrayPieces::BlockMasks RootArrayPieces::block_masks(const char* bytes) {
    __m128i chunks[4];
    for (std::size_t i = 0; i < 4; ++i)
        chunks[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + 16 * i));
    return {bytes_equal(chunks, '"'), bytes_equal(chunks, '\\'),
            bytes_equal(chunks, '[') | bytes_equal(chunks, '{'),
            bytes_equal(chunks, ']') | bytes_equal(chunks, '}'), bytes_equal(chunks, ',')};
}
#endif

RootArrayPieces::RootArrayPieces(std::istream& in, std::uintmax_t size, std::string_view source,
                                 std::string_view key, std::size_t batch_bytes)
    : in_(in), source_(source), batch_bytes_(std::max<std::size_t>(batch_bytes, 1)), hasher_(size) {
    scan_head(key);
}

bool RootArrayPieces::fill(std::size_t keep_from) {
    if (end_of_file_) return false;
    if (keep_from > 0) {
        origin_of(keep_from);
        std::memmove(buffer_.data(), buffer_.data() + keep_from, filled_ - keep_from);
        filled_ -= keep_from;
        scanned_ -= keep_from;
        batch_start_ -= keep_from;
        counted_ -= keep_from;
        if (last_comma_) *last_comma_ -= keep_from;
        buffer_offset_ += keep_from;
    }
    // An eighth of a batch at a time: what is left after a batch is moved to the buffer's start
    // before the next read, so it is kept small.
    const std::size_t wanted = std::max<std::size_t>(batch_bytes_ / 8, 16);
    if (buffer_.size() < filled_ + wanted + simdjson::SIMDJSON_PADDING)
        buffer_.resize(std::max(buffer_.size() * 2, filled_ + wanted + simdjson::SIMDJSON_PADDING));
    errno = 0;
    in_.read(buffer_.data() + filled_, static_cast<std::streamsize>(wanted));
    const auto got = static_cast<std::size_t>(in_.gcount());
    if (in_.bad())
        throw InputError(
            fmt::format("{}: cannot read: {}", source_, std::strerror(errno != 0 ? errno : EIO)));
    hasher_.update(std::string_view(buffer_.data() + filled_, got));
    filled_ += got;
    if (got == 0) end_of_file_ = true;
    return got > 0;
}

TextOrigin RootArrayPieces::origin_of(std::size_t at) {
    std::size_t from = counted_;
    while (from < at) {
        const void* newline = std::memchr(buffer_.data() + from, '\n', at - from);
        if (newline == nullptr) {
            counted_origin_.column += at - from;
            break;
        }
        const auto line_end =
            static_cast<std::size_t>(static_cast<const char*>(newline) - buffer_.data());
        ++counted_origin_.line;
        counted_origin_.column = 1;
        from = line_end + 1;
    }
    counted_ = at;
    return counted_origin_;
}

void RootArrayPieces::scan_head(std::string_view key) {
    // Only the root object's own keys are compared: at depth 1 the string before a ':' is a key,
    // and a '[' right after that ':' opens the array sought when the key is `key`.
    std::size_t depth = 0;
    bool in_string = false;
    bool escaped = false;
    bool first = true;
    char last_token = 0;  // the last byte outside strings at depth 1 that is not whitespace
    std::size_t string_start = 0;
    bool key_matches = false;  // whether the last string at depth 1 is `key`
    std::size_t at = 0;
    for (;;) {
        if (at == filled_ && (filled_ > max_head_bytes || !fill(0))) return;
        const char c = buffer_[at];
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"') {
                in_string = false;
                if (depth == 1) {
                    key_matches =
                        std::string_view(buffer_.data() + string_start, at - string_start) == key;
                    last_token = '"';
                }
            }
            ++at;
            continue;
        }
        if (is_whitespace(c)) {
            ++at;
            continue;
        }
        if (first) {
            if (c != '{') return;
            first = false;
            depth = 1;
            last_token = '{';
            ++at;
            continue;
        }
        switch (c) {
            case '"':
                in_string = true;
                string_start = at + 1;
                break;
            case '[':
                if (depth == 1 && last_token == ':' && key_matches) {
                    head_.assign(buffer_.data(), at + 1);
                    // Checked first, as the whole-text path checks the whole file first.
                    check_utf8(head_, source_, 0, 1);
                    scanned_ = batch_start_ = at + 1;
                    found_ = true;
                    return;
                }
                ++depth;
                break;
            case '{':
                ++depth;
                break;
            case '}':
            case ']':
                if (--depth == 0) return;
                break;
            default:
                break;
        }
        if (depth == 1) last_token = c;
        ++at;
    }
}

bool RootArrayPieces::scan_bytes(std::size_t& at, std::size_t until) {
    const char* const bytes = buffer_.data();
    while (at < until) {
        if (in_string_) {
            // Names are short: a plain loop to the closing quote beats a library search.
            if (escaped_) {
                escaped_ = false;
                ++at;
            }
            while (at < until && bytes[at] != '"' && bytes[at] != '\\') ++at;
            if (at >= until) break;
            if (bytes[at] == '\\') {
                escaped_ = true;
                ++at;
                continue;
            }
            in_string_ = false;
            ++at;
            continue;
        }
        switch (bytes[at]) {
            case '"':
                in_string_ = true;
                break;
            case '[':
            case '{':
                ++depth_;
                break;
            case ']':
            case '}':
                if (depth_ == 0) {
                    array_end_ = at;
                    scanned_ = at;
                    return true;
                }
                --depth_;
                break;
            case ',':
                if (at_comma(at)) return true;
                break;
            default:
                break;
        }
        ++at;
    }
    return false;
}

bool RootArrayPieces::at_comma(std::size_t at) {
    if (depth_ != 0) return false;
    last_comma_ = at;
    if (at - batch_start_ < batch_bytes_) return false;
    scanned_ = at + 1;
    return true;
}

#if defined(__SSE2__)
bool RootArrayPieces::scan_block(std::size_t& at) {
    const BlockMasks masks = block_masks(buffer_.data() + at);
    // A backslash makes the next byte literal, which the byte loop follows; benchmark names
    // rarely hold one, so such blocks are few.
    if (masks.backslash != 0) return false;
    // Bit i of `inside` is set where byte i lies in a string (its opening quote included): an
    // odd count of quotes up to it, or an even count after a block that ended in a string.
    const std::uint64_t inside =
        prefix_xor(masks.quote) ^ (in_string_ ? ~std::uint64_t{0} : std::uint64_t{0});
    std::uint64_t structural = (masks.open | masks.close | masks.comma) & ~inside;
    while (structural != 0) {
        const int bit = std::countr_zero(structural);
        structural &= structural - 1;
        const std::uint64_t one = std::uint64_t{1} << bit;
        const std::size_t here = at + static_cast<std::size_t>(bit);
        if ((masks.open & one) != 0) {
            ++depth_;
        } else if ((masks.close & one) != 0) {
            if (depth_ == 0) {
                array_end_ = here;
                scanned_ = here;
                in_string_ = false;
                at = here;
                return true;
            }
            --depth_;
        } else if (at_comma(here)) {
            in_string_ = false;
            at = here + 1;
            return true;
        }
    }
    in_string_ = (inside >> 63) != 0;
    at += block_bytes;
    return false;
}
#endif

void RootArrayPieces::scan_elements() {
    std::size_t at = scanned_;
    const std::size_t end = filled_;
    while (at < end) {
#if defined(__SSE2__)
        // The byte after a backslash, alone, so that the blocks go on from the next.
        if (escaped_) {
            if (scan_bytes(at, at + 1)) return;
            continue;
        }
        if (end - at >= block_bytes) {
            const std::size_t before = at;
            if (scan_block(at)) return;
            if (at != before) continue;
            // The block holds a backslash: the byte loop takes it.
            if (scan_bytes(at, before + block_bytes)) return;
            continue;
        }
#endif
        if (scan_bytes(at, end)) return;
    }
    scanned_ = at;
}

void RootArrayPieces::cut(std::size_t from, std::size_t to, bool close, CutBatch& batch) {
    // A batch after the first starts at a comma, so it must hold an element: "[{…},]" and
    // "{…},,{…}" are malformed even where the cut leaves an empty batch.
    const bool after_comma = emitted_;
    emitted_ = true;
    const std::size_t length = to - from + (close ? 1 : 0);
    const std::string_view elements(buffer_.data() + from, length);
    batch.text.resize(length + simdjson::SIMDJSON_PADDING);
    std::memcpy(batch.text.data(), elements.data(), length);
    std::memset(batch.text.data() + length, 0, simdjson::SIMDJSON_PADDING);
    batch.length = length;
    batch.text[0] = '[';
    if (close) batch.text[length - 1] = ']';
    batch.closed = close;
    batch.empty = after_comma && std::all_of(elements.begin() + 1, elements.end() - (close ? 1 : 0),
                                             is_whitespace);
    // Made ']' for the batch, the array's last byte must have been one: "[{…}}" is malformed.
    batch.closed_by_brace = array_end_ && to == *array_end_ && buffer_[to] != ']';
    // The first byte is the file's '[' or ',' before the elements: same line and column.
    batch.origin = origin_of(from);
    batch.origin.at = 0;
    batch.offset = buffer_offset_ + from;
}

JsonInput& RootArrayPieces::open(CutBatch& batch, std::string_view source,
                                 simdjson::ondemand::parser& parser,
                                 std::optional<JsonInput>& input) {
    const std::string_view text = batch.elements();
    input.emplace(text, batch.text.size(), source, std::vector<TextOrigin>{batch.origin}, parser);
    if (batch.empty) {
        if (!batch.closed) input->fail_json(simdjson::INCOMPLETE_ARRAY_OR_OBJECT);
        input->fail_json_at(text.data() + text.size() - 1, simdjson::TAPE_ERROR);
    }
    if (batch.closed_by_brace)
        input->fail_json_at(text.data() + text.size() - 1, simdjson::TAPE_ERROR);
    return *input;
}

void RootArrayPieces::check_utf8_of(const CutBatch& batch) const {
    check_utf8(batch.elements(), source_, batch.offset, batch.origin.line);
}

void RootArrayPieces::check_utf8_of_the_rest() {
    CutBatch batch;
    for (;;) {
        try {
            if (!next_cut(batch)) break;
        } catch (const InputError&) {
            return;
        }
        check_utf8_of(batch);
    }
    check_utf8(rest_text_, source_, tail_offset_, tail_origin_.line);
}

bool RootArrayPieces::next_cut(CutBatch& batch) {
    if (done_) return false;
    for (;;) {
        scan_elements();
        if (array_end_) {
            done_ = true;
            const std::size_t end = *array_end_;
            // The tail is copied as read: the batch's text ends with the array's bracket, made
            // ']' if the file had '}' there, and the tail still shows what the file holds.
            rest_text_.assign(buffer_.data() + end, filled_ - end);
            cut(batch_start_ - 1, end, true, batch);
            tail_origin_ = origin_of(end);
            tail_offset_ = buffer_offset_ + end;
            read_rest();
            return true;
        }
        if (last_comma_ && *last_comma_ - batch_start_ >= batch_bytes_) {
            const std::size_t comma = *last_comma_;
            const std::size_t from = batch_start_ - 1;
            batch_start_ = comma + 1;
            last_comma_.reset();
            cut(from, comma, true, batch);
            return true;
        }
        if (!fill(batch_start_ - 1)) {
            done_ = true;
            cut(batch_start_ - 1, filled_, false, batch);
            return true;
        }
    }
}

void RootArrayPieces::read_rest() {
    std::string chunk(read_bytes, '\0');
    for (;;) {
        errno = 0;
        in_.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        const auto got = static_cast<std::size_t>(in_.gcount());
        if (in_.bad())
            throw InputError(fmt::format("{}: cannot read: {}", source_,
                                         std::strerror(errno != 0 ? errno : EIO)));
        if (got == 0) return;
        const std::string_view bytes(chunk.data(), got);
        hasher_.update(bytes);
        rest_text_.append(bytes);
    }
}

JsonInput& RootArrayPieces::rest() {
    std::string text = head_ + rest_text_;
    check_utf8(rest_text_, source_, tail_offset_, tail_origin_.line);
    tail_origin_.at = head_.size();
    rest_text_ = std::move(text);
    rest_.emplace(rest_text_, rest_text_.size(), source_,
                  std::vector<TextOrigin>{TextOrigin{}, tail_origin_}, parser_);
    return *rest_;
}

std::uint64_t RootArrayPieces::content_hash() const {
    return hasher_.value();
}

namespace {

// What one thread of read_batches_on_two_threads() holds: the batch it cut, its own parser and
// the input over the batch.
struct Lane {
    CutBatch batch;
    simdjson::ondemand::parser parser;
    std::optional<JsonInput> input;
};

// How a batch failed, which decides what is reported when several fail.
enum class Failure {
    none,
    reading,       // the file could not be read on
    invalid_utf8,  // the batch's own bytes
    otherwise,     // parsed or taken in: invalid UTF-8 after it still comes first
};

// The order in which the threads of read_batches_on_two_threads() take their turns, and the
// failure that ends them.
class Turns {
  public:
    // Waits until batch `index` may be consumed; false when an earlier batch failed.
    bool wait_for(std::size_t index) {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return consumed_ == index || failure_; });
        return !failure_;
    }
    // Batch `index`, whose turn it is, was consumed.
    void consumed() {
        {
            std::lock_guard lock(mutex_);
            ++consumed_;
        }
        changed_.notify_all();
    }
    // The batch whose turn it is failed: every thread stops.
    void fail(std::exception_ptr failure, Failure how) {
        {
            std::lock_guard lock(mutex_);
            failure_ = std::move(failure);
            how_ = how;
        }
        failed_ = true;
        changed_.notify_all();
    }
    // The batch after the failed one, cut before the failure was known, holds invalid UTF-8.
    void later_invalid_utf8(std::exception_ptr failure) {
        std::lock_guard lock(mutex_);
        later_invalid_utf8_ = std::move(failure);
    }
    bool failed() const { return failed_; }
    // Once every thread has stopped: throws the failure, if any, unless invalid UTF-8 after the
    // failed batch is to be reported instead.
    void rethrow(RootArrayPieces& pieces) const {
        if (!failure_) return;
        if (how_ == Failure::otherwise) {
            if (later_invalid_utf8_) std::rethrow_exception(later_invalid_utf8_);
            pieces.check_utf8_of_the_rest();
        }
        std::rethrow_exception(failure_);
    }

  private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::size_t consumed_ = 0;
    std::exception_ptr failure_;
    Failure how_ = Failure::none;
    std::exception_ptr later_invalid_utf8_;
    std::atomic<bool> failed_ = false;
};

}  // namespace

void read_batches_on_two_threads(RootArrayPieces& pieces, bool second_thread,
                                 const std::function<void(JsonInput&, int)>& parse,
                                 const std::function<void(JsonInput&, int)>& consume) {
    std::mutex cutting;
    std::size_t next_index = 0;
    bool all_cut = false;
    Turns turns;
    const auto run_lane = [&](int lane_number) {
        Lane lane;
        for (;;) {
            std::size_t index = 0;
            std::exception_ptr failure;
            Failure how = Failure::none;
            {
                std::lock_guard lock(cutting);
                if (all_cut || turns.failed()) return;
                index = next_index++;
                try {
                    if (!pieces.next_cut(lane.batch)) {
                        all_cut = true;
                        return;
                    }
                } catch (...) {
                    failure = std::current_exception();
                    how = Failure::reading;
                    all_cut = true;
                }
            }
            JsonInput* input = nullptr;
            if (!failure) {
                // `how` names the step under way, so that a failure says which it was.
                try {
                    how = Failure::invalid_utf8;
                    pieces.check_utf8_of(lane.batch);
                    how = Failure::otherwise;
                    input = &RootArrayPieces::open(lane.batch, pieces.source(), lane.parser,
                                                   lane.input);
                    parse(*input, lane_number);
                    how = Failure::none;
                } catch (...) {
                    failure = std::current_exception();
                }
            }
            if (!turns.wait_for(index)) {
                if (how == Failure::invalid_utf8) turns.later_invalid_utf8(failure);
                return;
            }
            try {
                if (input != nullptr) consume(*input, lane_number);
            } catch (...) {
                turns.fail(std::current_exception(), Failure::otherwise);
                return;
            }
            if (failure) {
                turns.fail(failure, how);
                return;
            }
            turns.consumed();
        }
    };
    // Without a second thread the one lane takes every turn in order.
    std::optional<std::thread> helper;
    try {
        if (second_thread) helper.emplace(run_lane, 1);
    } catch (const std::system_error&) {
    }
    try {
        run_lane(0);
    } catch (...) {
        turns.fail(std::current_exception(), Failure::reading);
    }
    if (helper) helper->join();
    turns.rethrow(pieces);
}

}  // namespace benchwatch::ingest::detail
