# The browser build (TLBSIM_WEB, under emcmake): every module and the CLI
# compiled to WebAssembly as one single-file module (tlbsim.js, the .wasm
# inside it: nothing is fetched, so the page opens from file:// too), and
# the page around it (index.html, app.js, style.css), all into
# TLBSIM_WEB_PAGE_DIR. scripts/web.sh builds zlib and json-c for
# emscripten from their Debian sources into TLBSIM_WEB_DEPS first; the
# INI syntax is the config module's own there and zstd, xz and ISA-L are
# left out (the seams: sim/src/config/config_ini.h,
# sim/src/trace/trace_src_impl.h). docs/WEB.md says what the page lacks.
if(NOT EMSCRIPTEN)
  message(FATAL_ERROR "TLBSIM_WEB builds with emscripten: emcmake cmake -DTLBSIM_WEB=ON (scripts/web.sh does it)")
endif()
set(TLBSIM_WEB_DEPS "${CMAKE_BINARY_DIR}/deps" CACHE PATH "zlib and json-c built for emscripten (include/, lib/)")
set(TLBSIM_WEB_PAGE_DIR "${CMAKE_BINARY_DIR}/page" CACHE PATH "where the page goes")

# The libraries as the modules name them (PkgConfig::NAME).
foreach(lib ZLIB:libz.a JSONC:libjson-c.a)
  string(REPLACE ":" ";" lib "${lib}")
  list(GET lib 0 name)
  list(GET lib 1 file)
  if(NOT EXISTS ${TLBSIM_WEB_DEPS}/lib/${file})
    message(FATAL_ERROR "no ${TLBSIM_WEB_DEPS}/lib/${file}: scripts/web.sh builds it")
  endif()
  add_library(PkgConfig::${name} STATIC IMPORTED)
  set_target_properties(PkgConfig::${name} PROPERTIES IMPORTED_LOCATION ${TLBSIM_WEB_DEPS}/lib/${file}
    INTERFACE_INCLUDE_DIRECTORIES ${TLBSIM_WEB_DEPS}/include)
endforeach()

set(TLBSIM_GPU OFF)
add_subdirectory(sim)

# emcc's link step runs Debian's node-acorn, which a Node.js not from
# Debian (NodeSource's) does not look for in /usr/share/nodejs.
set_target_properties(tlbsim PROPERTIES C_LINKER_LAUNCHER "${CMAKE_COMMAND};-E;env;NODE_PATH=/usr/share/nodejs")

# The CLI is the page's C API: the page runs `tlbsim explain`, `run --log`,
# `quiz` and `alloc` through callMain, so every number and every error it
# shows is the command's own.
target_link_options(tlbsim PRIVATE -sMODULARIZE=1 -sEXPORT_NAME=createTlbsim -sINVOKE_RUN=0 -sEXIT_RUNTIME=0
  -sEXPORTED_RUNTIME_METHODS=callMain,FS,ccall,HEAPU32
  -sEXPORTED_FUNCTIONS=_main,_fflush,_malloc,_free,_tlbsim_size -sFORCE_FILESYSTEM=1
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB -sSINGLE_FILE=1 -sENVIRONMENT=web,node)
set_target_properties(tlbsim PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TLBSIM_WEB_PAGE_DIR})

set(web_page_files index.html app.js style.css)
set(web_page_outputs)
foreach(f ${web_page_files})
  add_custom_command(OUTPUT ${TLBSIM_WEB_PAGE_DIR}/${f}
    COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_CURRENT_LIST_DIR}/${f} ${TLBSIM_WEB_PAGE_DIR}/${f}
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/${f} VERBATIM)
  list(APPEND web_page_outputs ${TLBSIM_WEB_PAGE_DIR}/${f})
endforeach()
add_custom_target(web_page ALL DEPENDS ${web_page_outputs})
