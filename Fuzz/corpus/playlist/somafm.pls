[playlist]
numberofentries=2
File1=https://ice1.somafm.com/groovesalad-128-mp3
Title1=SomaFM: Groove Salad (#1): A nicely chilled plate
Length1=-1
File2=https://ice2.somafm.com/groovesalad-128-mp3
Title2=SomaFM
Length2=-1
Version=2
