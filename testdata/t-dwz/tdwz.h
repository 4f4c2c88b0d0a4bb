// t-dwz: what the program and its library share, in a header. Compiled into both, its
// entries (types, the abstract instances of the inline functions) are what `dwz -m`
// moves into the common file tdwz.dwz.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace tdwz {

struct Record {
    std::string key;
    std::vector<long> values;
};

// Inlined into its callers in both files: the allocation sites' inline frames.
inline Record* make_record(const std::string& key, int n) {
    Record* r = new Record{key, {}};
    r->values.reserve(n);
    for (int i = 0; i < n; i++) r->values.push_back(i * 7L);
    return r;
}

class Table {
  public:
    // Inlined: grows the map, the strings and the vectors.
    void put(const std::string& key, int n) { rows_[key] = make_record(key, n); }
    size_t size() const { return rows_.size(); }

  private:
    std::map<std::string, Record*> rows_;
};

// Defined in libtdwz.so.
Table* fill_library_table(int rows);
long checksum(const Table& t);

}  // namespace tdwz
