"""The sample maui.cfg files, shipped in the wheel as the package maui_py.samples (pyproject's
package-dir maps it to this folder): `maui-py samples` lists them, `maui-py samples NAME` prints one."""
