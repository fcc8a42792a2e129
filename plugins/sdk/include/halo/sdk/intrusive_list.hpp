// A doubly linked list threaded through its items' own previous/next
// members, kept as a head and a tail pointer: the queues' lists of
// submissions in flight (or deferred) allocate nothing and unlink in O(1).
// The links are named by member pointers, so one item can be on several
// lists; instantiate where the item's type is complete.
#ifndef HALO_SDK_INTRUSIVE_LIST_HPP_
#define HALO_SDK_INTRUSIVE_LIST_HPP_

namespace halo::sdk {

// Appends |item| to the list (|head|, |tail|). Not thread-safe.
template <auto kPrevious, auto kNext, typename T>
void list_push_back(T*& head, T*& tail, T* item) noexcept {
  item->*kPrevious = tail;
  item->*kNext = nullptr;
  if (tail != nullptr) {
    tail->*kNext = item;
  } else {
    head = item;
  }
  tail = item;
}

// Unlinks |item|, which is on the list (|head|, |tail|). Returns true when it
// was the first item. Not thread-safe.
template <auto kPrevious, auto kNext, typename T>
bool list_remove(T*& head, T*& tail, T* item) noexcept {
  T* previous = item->*kPrevious;
  T* next = item->*kNext;
  if (previous != nullptr) {
    previous->*kNext = next;
  } else {
    head = next;
  }
  if (next != nullptr) {
    next->*kPrevious = previous;
  } else {
    tail = previous;
  }
  return previous == nullptr;
}

}  // namespace halo::sdk

#endif  // HALO_SDK_INTRUSIVE_LIST_HPP_
