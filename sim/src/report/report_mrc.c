/* The rows of miss-ratio curves (mrc.h) as JSON objects: `tlbsim mrc` and
 * libtlbsim print the same rows. */
#include "tlbsim/report.h"

/* A row's OPT columns: the misses of an OPT array as large, on fully
 * associative rows; null (an empty CSV field) on the others. */
static void add_opt(json_object *row, const mrc *m, unsigned i, uint32_t sets, uint32_t ways, uint64_t accesses) {
  if (sets > 1) {
    json_object_object_add(row, "opt_misses", NULL);
    json_object_object_add(row, "opt_miss_ratio", NULL);
    return;
  }
  uint64_t misses = mrc_opt_misses(m, i, ways);
  json_object_object_add(row, "opt_misses", json_object_new_uint64(misses));
  json_object_object_add(row, "opt_miss_ratio", report_ratio(misses, accesses));
}

static json_object *row_json(uint64_t page_bytes, uint32_t sets, uint32_t ways, uint64_t accesses, uint64_t misses) {
  json_object *row = json_object_new_object();
  json_object_object_add(row, "page_bytes", json_object_new_uint64(page_bytes));
  json_object_object_add(row, "sets", json_object_new_uint64(sets));
  json_object_object_add(row, "ways", json_object_new_uint64(ways));
  json_object_object_add(row, "entries", json_object_new_uint64((uint64_t)sets * ways));
  json_object_object_add(row, "accesses", json_object_new_uint64(accesses));
  json_object_object_add(row, "misses", json_object_new_uint64(misses));
  json_object_object_add(row, "miss_ratio", report_ratio(misses, accesses));
  return row;
}

json_object *report_mrc_rows(const mrc *m, const mrc_spec *s, const uint64_t *entries, unsigned nentries,
                             const uint64_t *ways, unsigned nways) {
  json_object *rows = json_object_new_array();
  for (unsigned i = 0; i < s->npage_shifts; i++) {
    uint64_t page = 1ull << s->page_shift[i], refs = mrc_references(m, i);
    for (unsigned e = 0; e < nentries; e++) {
      uint32_t n = (uint32_t)entries[e]; /* <= MRC_MAX_ENTRIES */
      json_object *row = row_json(page, 1, n, refs, mrc_misses(m, i, 1, n));
      if (s->opt) add_opt(row, m, i, 1, n, refs);
      json_object_array_add(rows, row);
    }
    for (unsigned w = 0; w < nways; w++) {
      uint32_t k = (uint32_t)ways[w];
      for (uint32_t sets = 2; mrc_measures(m, sets, k); sets *= 2) {
        json_object *row = row_json(page, sets, k, refs, mrc_misses(m, i, sets, k));
        if (s->opt) add_opt(row, m, i, sets, k, refs);
        json_object_array_add(rows, row);
      }
    }
  }
  return rows;
}
