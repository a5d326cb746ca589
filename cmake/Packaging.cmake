# Installation layout and the Debian package (CPack): `./scripts/package.sh` builds
# build/poslab_VERSION_amd64.deb. The programs find their presets and lessons in
# <prefix>/share/poslab/resources (core/io/resource_dir.cpp).
include(GNUInstallDirs)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/presets
        DESTINATION ${CMAKE_INSTALL_DATADIR}/poslab/resources)
if(EXISTS ${PROJECT_SOURCE_DIR}/resources/lessons)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/lessons
          DESTINATION ${CMAKE_INSTALL_DATADIR}/poslab/resources)
endif()
if(TARGET poslab)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/linux/io.github.poslab.PosLab.desktop
          DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/linux/io.github.poslab.PosLab.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/linux/io.github.poslab.PosLab.metainfo.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The Debian package depends on Debian's runtime packages, LibTorch among them: it is made only
# from a build against Debian's LibTorch (Torch_DIR under /usr), never from the pip build.
if(NOT Torch_DIR MATCHES "^/usr/")
  message(STATUS "PosLab: no Debian package from this build (LibTorch ${Torch_VERSION} is not Debian's)")
  return()
endif()
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME poslab)
set(CPACK_PACKAGE_VENDOR "PosLab")
set(CPACK_PACKAGE_CONTACT "PosLab developers <poslab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "laboratory for relative positional encodings in transformers")
set(CPACK_PACKAGE_DESCRIPTION
    "PosLab computes, compares and trains the positional encodings of the Jordan-RoPE, PJ-RoPE and\n PoPE papers (RoPE and its variants, ALiBi, damped RoPE, Jordan-RoPE, PJ-RoPE, PoPE): a Qt\n desktop application with live plots and live training, and the command-line tool poslab-cli.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # poslab_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# The runtime libraries the programs link (LibTorch, Qt 6, QCustomPlot, ...) from dpkg-shlibdeps;
# OpenBLAS's pthread build by name: torch loads it through the BLAS alternative, and without it
# Debian's torch runs on the reference BLAS, about 3x slower.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libopenblas0-pthread")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "fortunes-min, fortunes")
include(CPack)
