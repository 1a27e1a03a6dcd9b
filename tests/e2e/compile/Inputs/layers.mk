# A model's layers compiled the way a build system would: one `vtac compile` per layer, make
# dependencies from the depfiles vtac writes (-MD). Variables: VTAC, SRC (the .tvm files),
# OUT (objects and depfiles), LAYERS (the layer names).
OBJECTS := $(LAYERS:%=$(OUT)/%.o)

all: $(OBJECTS)

$(OUT)/%.o:
	@echo "compiling $*"
	@$(VTAC) compile $(SRC)/$*.tvm -o $@ -MD

# Before the first build there are no depfiles: each object then depends on its source here.
$(foreach layer,$(LAYERS),$(if $(wildcard $(OUT)/$(layer).d),,$(eval $(OUT)/$(layer).o: $(SRC)/$(layer).tvm)))

# Depfiles are written by the compile rule, never made on their own.
$(LAYERS:%=$(OUT)/%.d): ;

-include $(LAYERS:%=$(OUT)/%.d)
