// Large allocations on transparent huge pages.
//
// Recording a big results file touches a few hundred MB at once (the file, simdjson's index of
// it, the results). With 4 KiB pages that is tens of thousands of page faults, which cost more
// than the parsing itself on virtual machines such as CI runners. Blocks of 1 MiB and more are
// therefore aligned to 2 MiB and advised as huge pages (madvise, so this works with the kernel's
// default THP setting "madvise"); everything smaller goes to malloc unchanged. Everything is
// freed with free(), so deallocation needs no bookkeeping. Sanitizer builds keep their own
// allocator.
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace {

constexpr std::size_t huge_page = std::size_t{2} << 20;
constexpr std::size_t large_allocation = std::size_t{1} << 20;

void* allocate(std::size_t size) noexcept {
    if (size >= large_allocation) {
        const std::size_t rounded = (size + huge_page - 1) / huge_page * huge_page;
        if (void* block = std::aligned_alloc(huge_page, rounded)) {
            ::madvise(block, rounded, MADV_HUGEPAGE);
            return block;
        }
        return nullptr;
    }
    return std::malloc(size == 0 ? 1 : size);
}

void* allocate_or_throw(std::size_t size) {
    if (void* block = allocate(size)) return block;
    throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t size) {
    return allocate_or_throw(size);
}
void* operator new[](std::size_t size) {
    return allocate_or_throw(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    return allocate(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
    return allocate(size);
}
void operator delete(void* block) noexcept {
    std::free(block);
}
void operator delete[](void* block) noexcept {
    std::free(block);
}
void operator delete(void* block, std::size_t) noexcept {
    std::free(block);
}
void operator delete[](void* block, std::size_t) noexcept {
    std::free(block);
}
void operator delete(void* block, const std::nothrow_t&) noexcept {
    std::free(block);
}
void operator delete[](void* block, const std::nothrow_t&) noexcept {
    std::free(block);
}

#endif
