# collectors/quote.mk — a make value quoted for the shell, and the paths make itself cannot
# carry refused by name. Included by the Makefile and by collectors/collector-dir.mk (so by
# collectors/build.mk and tests/abi/abi.mk).
#
# A recipe line is shell text. A value put in it as '$(X)' breaks at a quote in X, and then
# the rest runs as commands: `make collector COLLECTOR_DIR="/tmp/q';id>/tmp/PWNED;'"` ran id,
# and a folder named it's was a syntax error. Every path or name a recipe or $(shell) hands
# on goes through $(call gcr_shq,VALUE): one shell word, whatever bytes it holds ('it'\''s').
gcr_shq = '$(subst ','\'',$(1))'
# Each word of a list (of paths make has already split on blanks), quoted.
gcr_shqs = $(foreach w,$(1),$(call gcr_shq,$(w)))

# Some characters make reads in a file name it is given for a rule, before any shell sees
# it: blanks split a name in two; ':', ';', '|' and '=' end or change a rule's list of
# targets or prerequisites (a folder named semi;colon once said "no source includes gcr.h");
# '%' is a pattern; '*', '?', '[' and ']' glob; '#' starts a comment and '$' a reference in
# $(eval)'s text; '(' and ')' name an archive member; '\' escapes. No quoting helps there, so
# $(call gcr_path_check,VAR) stops make with a message naming the character. Quotes and the
# rest are fine: gcr_shq carries them.
gcr_hash := \#
gcr_dollar := $$
gcr_lparen := (
gcr_rparen := )
gcr_path_bad := ; : | = % * ? [ ] \ $(gcr_hash) $(gcr_dollar) $(gcr_lparen) $(gcr_rparen)
gcr_path_char = $(firstword $(foreach c,$(gcr_path_bad),$(if $(findstring $(c),$(1)),$(c))))
gcr_path_refuse = $(error $(1): make cannot handle the character '$(2)' in a path (in a rule \
  it means something to make itself); rename, move or link the folder)
gcr_path_check = $(if $(filter-out 0 1,$(words $($(1)))),$(error $(1)=$($(1)): make cannot \
  handle a path with blanks; move or link the folder))$(call gcr_paths_check,$(1))
# The same for each path of a list (COLLECTOR_SRCS), blanks being its separators.
gcr_paths_check = $(foreach p,$($(1)),$(if $(call gcr_path_char,$(p)),$(call \
  gcr_path_refuse,$(1)=$(p),$(call gcr_path_char,$(p)))))
