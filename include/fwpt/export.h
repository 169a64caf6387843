/* fwpt — the export marker of the public API. The library's objects are compiled with -fvisibility=hidden:
 * a function is exported only when its public declaration carries FWPT_API. */
#ifndef FWPT_EXPORT_H
#define FWPT_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define FWPT_API __attribute__((visibility("default")))
#else
#define FWPT_API
#endif

#ifdef __cplusplus
#define FWPT_BEGIN_DECLS extern "C" {
#define FWPT_END_DECLS }
#else
#define FWPT_BEGIN_DECLS
#define FWPT_END_DECLS
#endif

#endif
