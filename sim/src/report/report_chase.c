/* A point of the pointer chase as a row of the chase CSV (report.h). */
#include "tlbsim/report.h"

#include <math.h>

static void put_u64(json_object *o, const char *key, uint64_t v) {
  json_object_object_add(o, key, json_object_new_uint64(v));
}

/* Per TLB level, the same four keys `tlbsim run` gives a level. */
static json_object *levels_json(const mmu_config *mc, const chase_result *r) {
  json_object *levels = json_object_new_object();
  for (unsigned i = 0; i < mc->nlevels; i++) {
    const mmu_level_stats *l = &r->level[i];
    json_object *o = json_object_new_object();
    put_u64(o, "accesses", l->accesses);
    put_u64(o, "hits", l->hits);
    put_u64(o, "misses", l->misses);
    json_object_object_add(o, "miss_ratio", report_ratio(l->misses, l->accesses));
    json_object_object_add(levels, mc->level[i].name, o);
  }
  return levels;
}

json_object *report_chase_row(const chase_spec *s, const mmu_config *mc, const chase_result *r) {
  json_object *row = json_object_new_object();
  json_object_object_add(row, "pattern", json_object_new_string("chase"));
  json_object_object_add(row, "order", json_object_new_string(chase_order_name(s->order)));
  json_object_object_add(row, "mapping", json_object_new_string(region_mapping_names[s->mapping]));
  put_u64(row, "page_bytes", s->page_size);
  put_u64(row, "stride_bytes", s->stride);
  put_u64(row, "footprint_bytes", (uint64_t)r->nodes * s->stride);
  put_u64(row, "steps", s->steps);
  json_object_object_add(row, "cycles_per_access", report_real(r->cycles_per_access));
  put_u64(row, "seed", s->seed);
  put_u64(row, "nodes", r->nodes);
  put_u64(row, "repeats", s->repeats);
  json_object_object_add(row, "tlb", levels_json(mc, r));
  json_object_object_add(row, "walks_per_access", report_ratio(r->walks, r->loads));
  json_object_object_add(row, "walk_refs_per_access", report_ratio(r->walk_refs, r->loads));
  return row;
}
