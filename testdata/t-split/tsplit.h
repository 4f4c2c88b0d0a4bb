// t-split: inline functions both units of the program use; with -gsplit-dwarf their
// entries (and every function's) are in the units' .dwo files.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace tsplit {

struct Entry {
    std::string name;
    std::vector<int> cells;
};

inline Entry* make_entry(const std::string& name, int n) {
    Entry* e = new Entry{name, {}};
    e->cells.assign(n, 7);
    return e;
}

class Index {
  public:
    void add(const std::string& name, int n) { by_name_[name] = make_entry(name, n); }
    size_t size() const { return by_name_.size(); }

  private:
    std::map<std::string, Entry*> by_name_;
};

Index* build_index(int n);

}  // namespace tsplit
