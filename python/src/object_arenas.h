#pragma once

// Memory for the Python objects of a large conversion (toPandas) on transparent huge pages.

namespace silt::python {

/// While alive, new pymalloc arenas (the 1 MiB blocks Python's small objects live in) are the
/// halves of 2 MiB blocks advised as huge pages: tens of millions of str objects then cost a
/// page fault per 2 MiB instead of per 4 KiB, which is most of making them. Outside any scope
/// arenas come from the allocator that was installed before (Python's own), and an arena is
/// always freed by the allocator that made it, so nothing else in the process changes. Needs
/// the GIL (pymalloc asks for arenas under it); scopes may nest.
class HugeObjectArenas {
 public:
  HugeObjectArenas();
  ~HugeObjectArenas();
  HugeObjectArenas(const HugeObjectArenas&) = delete;
  HugeObjectArenas& operator=(const HugeObjectArenas&) = delete;
};

}  // namespace silt::python
