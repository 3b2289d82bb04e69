#include "compare/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace benchwatch::compare::detail {

void for_each_index(std::size_t count, const std::function<void(std::size_t)>& work) {
    constexpr unsigned most_threads = 8;
    const auto cores = std::max(1U, std::thread::hardware_concurrency());
    const auto threads = std::min<std::size_t>({count, cores, most_threads});
    if (threads <= 1) {
        for (std::size_t i = 0; i < count; ++i) work(i);
        return;
    }
    std::atomic<std::size_t> next{0};
    std::mutex failure_lock;
    std::exception_ptr failure;
    const auto take_turns = [&] {
        for (std::size_t i = next++; i < count; i = next++) {
            try {
                work(i);
            } catch (...) {
                const std::lock_guard lock(failure_lock);
                if (!failure) failure = std::current_exception();
            }
        }
    };
    std::vector<std::thread> helpers;
    helpers.reserve(threads - 1);
    try {
        while (helpers.size() + 1 < threads) helpers.emplace_back(take_turns);
    } catch (const std::system_error&) {
        // No more threads to be had: those started and this one share the work.
    }
    take_turns();
    for (auto& helper : helpers) helper.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace benchwatch::compare::detail
