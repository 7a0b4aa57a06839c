/* config_ini_inih.c — the INI syntax through libinih (config_ini.h): the
 * native build's. */
#include <ini.h>

#include "config_ini.h"

int cfg_ini_parse(cfg_ini_reader reader, void *stream, cfg_ini_handler handler, void *user) {
  return ini_parse_stream(reader, stream, handler, user);
}
