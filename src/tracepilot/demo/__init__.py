"""The bundled demo program (ShopDemo.java) that `tracepilot demo` compiles and runs."""
