/* tlbsim quiz — the exercises of one seed, written as text or JSON. Each
 * kind draws from its own generator seeded by (seed, kind), so one kind's
 * exercise does not change with the others asked. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "quiz_impl.h"

const char *const quiz_kind_names[] = {"translate", "tlb", "pt-size", "alloc", "pool", NULL};

typedef int (*quiz_gen)(quiz_exercise *x, rng *r, const quiz_env *env, diag *d);

static int gen_alloc(quiz_exercise *x, rng *r, const quiz_env *env, diag *d) {
  (void)env;
  return quiz_alloc(x, r, d);
}

static int gen_pool(quiz_exercise *x, rng *r, const quiz_env *env, diag *d) {
  (void)env;
  return quiz_pool(x, r, d);
}

static const quiz_gen generators[QUIZ_NKINDS] = {quiz_translate, quiz_tlb, quiz_pt_size, gen_alloc, gen_pool};

const char *quiz_pick_preset(rng *r) {
  static const char *const presets[] = {"teaching", "x86-64", "h200"};
  return presets[rng_below(r, sizeof presets / sizeof presets[0])];
}

quiz_question *quiz_ask(quiz_exercise *x, const char *fmt, ...) {
  if (x->nq == QUIZ_MAX_QUESTIONS) return NULL;
  quiz_question *q = &x->q[x->nq++];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(q->ask, sizeof q->ask, fmt, ap);
  va_end(ap);
  return q;
}

static const char *prot_text(unsigned prot, char buf[4]) {
  buf[0] = prot & PT_R ? 'r' : '-';
  buf[1] = prot & PT_W ? 'w' : '-';
  buf[2] = prot & PT_X ? 'x' : '-';
  buf[3] = '\0';
  return buf;
}

static void write_record(FILE *f, const trace_record *r) {
  static const char access[] = {'r', 'w', 'x'};
  char a[32], b[32], p[4];
  switch (r->kind) {
  case REC_ACCESS: fprintf(f, "%c %#llx\n", access[r->access], (unsigned long long)r->addr); break;
  case REC_MAP:
    fprintf(f, "map %#llx %s page=%s prot=%s\n", (unsigned long long)r->addr, num_format_size(r->size, a, sizeof a),
            num_format_size(r->page_size, b, sizeof b), prot_text(r->prot, p));
    break;
  case REC_ALLOC: fprintf(f, "alloc %llu %s\n", (unsigned long long)r->alloc_id, num_format_size(r->size, a, sizeof a)); break;
  case REC_FREE: fprintf(f, "free %llu\n", (unsigned long long)r->alloc_id); break;
  default: fprintf(f, "# unused record kind %d\n", (int)r->kind); break;
  }
}

int quiz_record(quiz_exercise *x, machine *m, const trace_record *r, diag *d) {
  write_record(x->trace_out, r);
  return m ? machine_apply(m, r, "quiz", d) : 0;
}

static void seen_lookup(void *ctx, const mmu_lookup_event *e) {
  quiz_seen *s = ctx;
  if (e->level || s->looked) return;
  s->looked = true;
  s->hit = e->hit;
}

static void seen_fill(void *ctx, const mmu_fill_event *e) {
  quiz_seen *s = ctx;
  if (e->level || !e->victim.evicted) return;
  s->evicted = true;
  s->victim_vpn = e->victim.va >> e->victim.page_shift;
}

static void seen_translated(void *ctx, uint64_t va, const mmu_outcome *o) {
  (void)va;
  quiz_seen *s = ctx;
  s->status = o->status;
  s->pa = o->pa;
  s->page_shift = o->page_shift;
}

int quiz_access(quiz_exercise *x, machine *m, trace_access k, uint64_t va, quiz_seen *seen, diag *d) {
  *seen = (quiz_seen){0};
  const mmu_observer o = {.ctx = seen, .lookup = seen_lookup, .fill = seen_fill, .translated = seen_translated};
  const trace_record r = {.kind = REC_ACCESS, .access = k, .addr = va, .size = 1};
  machine_set_observer(m, &o);
  int rc = quiz_record(x, m, &r, d);
  machine_set_observer(m, NULL);
  return rc;
}

int quiz_show_pt(quiz_exercise *x, const quiz_env *env, const machine *m, diag *d) {
  FILE *f = open_memstream(&x->shown, &x->shown_len);
  if (!f) return diag_set(d, NULL, 0, "out of memory");
  int rc = env->show_pt(env->ctx, f, m);
  if (fclose(f) || rc) return diag_set(d, NULL, 0, "out of memory");
  return 0;
}

/* --- writing ------------------------------------------------------------------ */

/* Each line of text, indented. */
static void indented(FILE *out, const char *text, const char *indent) {
  while (*text) {
    const char *nl = strchr(text, '\n');
    size_t n = nl ? (size_t)(nl - text) : strlen(text);
    fprintf(out, n ? "%s%.*s\n" : "\n", indent, (int)n, text);
    text += n + (nl != NULL);
  }
}

static void write_text(FILE *out, const quiz_exercise *x, unsigned number, bool answers) {
  fprintf(out, "\n%u. %s (%s)\n", number, x->title, quiz_kind_names[x->kind]);
  indented(out, x->prompt, "   ");
  if (x->shown) indented(out, x->shown, "     ");
  for (unsigned i = 0; i < x->nq; i++) fprintf(out, "   %c) %s\n", 'a' + i, x->q[i].ask);
  fprintf(out, "   Check with: %s, TRACE holding\n", x->command);
  indented(out, x->trace, "     ");
  if (!answers) return;
  fprintf(out, "   Answers:\n");
  for (unsigned i = 0; i < x->nq; i++) fprintf(out, "   %c) %s\n", 'a' + i, x->q[i].key);
}

static json_object *exercise_json(quiz_exercise *x, unsigned number, bool answers) {
  json_object *o = json_object_new_object(), *qs = json_object_new_array();
  json_object_object_add(o, "number", json_object_new_int((int)number));
  json_object_object_add(o, "kind", json_object_new_string(quiz_kind_names[x->kind]));
  json_object_object_add(o, "title", json_object_new_string(x->title));
  json_object_object_add(o, "prompt", json_object_new_string(x->prompt));
  json_object_object_add(o, "command", json_object_new_string(x->command));
  json_object_object_add(o, "trace", json_object_new_string(x->trace));
  if (x->shown) json_object_object_add(o, "page_table", json_object_new_string(x->shown));
  for (unsigned i = 0; i < x->nq; i++) {
    json_object *q = json_object_new_object();
    json_object_object_add(q, "ask", json_object_new_string(x->q[i].ask));
    if (answers) {
      json_object_object_add(q, "key", json_object_new_string(x->q[i].key));
      json_object_object_add(q, "answer", json_object_get(x->q[i].answer));
    }
    json_object_array_add(qs, q);
  }
  json_object_object_add(o, "questions", qs);
  return o;
}

static void exercise_free(quiz_exercise *x) {
  if (x->trace_out) fclose(x->trace_out);
  free(x->trace);
  free(x->shown);
  for (unsigned i = 0; i < x->nq; i++) json_object_put(x->q[i].answer);
}

/* Generates exercise `kind` of the seed into x (x->trace closed). */
static int generate(quiz_exercise *x, quiz_kind kind, uint64_t seed, const quiz_env *env, diag *d) {
  *x = (quiz_exercise){.kind = kind};
  if (!(x->trace_out = open_memstream(&x->trace, &x->trace_len))) return diag_set(d, NULL, 0, "out of memory");
  rng r;
  rng_seed(&r, seed * QUIZ_NKINDS + (uint64_t)kind);
  int rc = generators[kind](x, &r, env, d);
  if (fclose(x->trace_out) && !rc) rc = diag_set(d, NULL, 0, "out of memory");
  x->trace_out = NULL;
  return rc;
}

int quiz_write(FILE *out, const quiz_options *o, const quiz_env *env, diag *d) {
  unsigned kinds = o->kinds ? o->kinds : (1u << QUIZ_NKINDS) - 1, number = 0;
  json_object *doc = json_object_new_object(), *list = json_object_new_array();
  json_object_object_add(doc, "seed", json_object_new_uint64(o->seed));
  json_object_object_add(doc, "exercises", list);
  if (o->format == QUIZ_TEXT)
    fprintf(out, "tlbsim quiz --seed %llu%s\n", (unsigned long long)o->seed,
            o->answers ? ": with answers" : " (add --answers for the key)");
  int rc = 0;
  for (unsigned k = 0; k < QUIZ_NKINDS && !rc; k++) {
    if (!(kinds & (1u << k))) continue;
    quiz_exercise x;
    rc = generate(&x, (quiz_kind)k, o->seed, env, d);
    if (!rc && o->format == QUIZ_TEXT) write_text(out, &x, ++number, o->answers);
    else if (!rc) json_object_array_add(list, exercise_json(&x, ++number, o->answers));
    exercise_free(&x);
  }
  if (!rc && o->format == QUIZ_JSON)
    fprintf(out, "%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put(doc);
  return rc;
}
